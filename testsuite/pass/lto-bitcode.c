// -flto and -flto=thin: the bitcode handed to the linker is already
// instrumented and marked (the pass runs in the pre-link pipelines, at -O0
// too), so the link step needs no plugin.
//
// RUN: %clang -fplugin=%plugin -flto -O0 -c %s -o %t.full0.bc
// RUN: %llvm-dis %t.full0.bc -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -flto -O2 -c %s -o %t.full2.bc
// RUN: %llvm-dis %t.full2.bc -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -flto=thin -O0 -c %s -o %t.thin0.bc
// RUN: %llvm-dis %t.thin0.bc -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -flto=thin -O2 -c %s -o %t.thin2.bc
// RUN: %llvm-dis %t.thin2.bc -o - | FileCheck %s
#include <stdatomic.h>
#include <unistd.h>

_Atomic long counter;

// CHECK-LABEL: @tick(
long tick(void) {
  // CHECK: call void @__detsim_yield_access(ptr @counter, i32 3)
  // CHECK-NEXT: atomicrmw add ptr @counter, i64 {{.*}} seq_cst
  // CHECK: call i32 @__detsim_sleep(i32 noundef 1)
  long v = atomic_fetch_add(&counter, 1);
  sleep(1);
  return v;
}
// CHECK-NOT: declare {{.*}} @sleep(
// CHECK: !detsim.instrumented
