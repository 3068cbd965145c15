// Functions the program defines itself are its own, even with a table name:
// a user `sleep` is neither renamed nor are its callers redirected.  A
// declaration in the same file (usleep) is still rewritten.
//
// RUN: %clang -fplugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O1 -fno-inline -S -emit-llvm %s -o - | FileCheck %s
int usleep(unsigned);

// CHECK-LABEL: define {{.*}}i32 @sleep(i32
unsigned sleep(unsigned s) { return s + 1; }

// CHECK-LABEL: @caller(
unsigned caller(void) {
  // CHECK: call i32 @sleep(i32 noundef 2)
  // CHECK: call i32 @__detsim_usleep(i32 noundef 3)
  return sleep(2) + usleep(3);
}
// CHECK-NOT: __detsim_sleep
