// Volatile loads and stores (memory-mapped flags, hand-rolled spin loops)
// get a yield point: VOLATILE_LOAD = 7, VOLATILE_STORE = 8.  Plain loads and
// stores of the same variables' neighbours get none.
//
// RUN: %clang -fplugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
volatile int flag;
volatile long counter;
int plain;

// CHECK-LABEL: @spin(
void spin(void) {
  // CHECK: call void @__detsim_yield_access(ptr @flag, i32 7)
  // CHECK-NEXT: load volatile i32, ptr @flag
  while (!flag) {
  }
  // CHECK: call void @__detsim_yield_access(ptr @counter, i32 7)
  // CHECK-NEXT: load volatile i64, ptr @counter
  // CHECK: call void @__detsim_yield_access(ptr @counter, i32 8)
  // CHECK-NEXT: store volatile i64 {{.*}}, ptr @counter
  counter = counter + 1;
  // CHECK-NOT: __detsim_yield_access
  // CHECK: store i32 {{.*}}, ptr @plain
  // CHECK-NOT: __detsim_yield_access
  plain = plain + 1;
  // CHECK: ret void
}
