// With -g every inserted call carries the debug location of the access it
// stands before (the module verifies, and backtraces from the runtime name
// the access's line).
//
// RUN: %clang -fplugin=%plugin -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %opt -passes=verify -disable-output %t.O0.ll
// RUN: %clang -fplugin=%plugin -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: FileCheck %s --input-file=%t.O2.ll
// RUN: %opt -passes=verify -disable-output %t.O2.ll
#include <stdatomic.h>

_Atomic int a;
volatile int v;

// CHECK-LABEL: @f(
int f(void) {
  // CHECK: call void @__detsim_yield_access(ptr @a, i32 3), !dbg [[RMW:![0-9]+]]
  // CHECK-NEXT: atomicrmw add ptr @a, i32 {{.*}} seq_cst, align 4, !dbg [[RMW]]
  atomic_fetch_add(&a, 1);
  // CHECK: call void @__detsim_yield_access(ptr null, i32 5), !dbg [[FENCE:![0-9]+]]
  // CHECK-NEXT: fence seq_cst, !dbg [[FENCE]]
  atomic_thread_fence(memory_order_seq_cst);
  // CHECK: call void @__detsim_yield_access(ptr @v, i32 7), !dbg [[VOL:![0-9]+]]
  // CHECK-NEXT: load volatile i32, ptr @v, align 4{{.*}}, !dbg [[VOL]]
  return v;
}
// CHECK-DAG: [[RMW]] = !DILocation(line: 20,
// CHECK-DAG: [[FENCE]] = !DILocation(line: 23,
// CHECK-DAG: [[VOL]] = !DILocation(line: 26,
