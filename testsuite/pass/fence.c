// Thread fences get a yield point with a null address (FENCE = 5); signal
// fences (syncscope("singlethread")) order nothing between threads and get
// none.
//
// RUN: %clang -fplugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
#include <stdatomic.h>

// CHECK-LABEL: @fences(
void fences(void) {
  // CHECK: call void @__detsim_yield_access(ptr null, i32 5)
  // CHECK-NEXT: fence seq_cst
  atomic_thread_fence(memory_order_seq_cst);
  // CHECK-NEXT: fence syncscope("singlethread") seq_cst
  atomic_signal_fence(memory_order_seq_cst);
  // CHECK-NEXT: call void @__detsim_yield_access(ptr null, i32 5)
  // CHECK-NEXT: fence acquire
  atomic_thread_fence(memory_order_acquire);
  // CHECK-NEXT: fence syncscope("singlethread") release
  __atomic_signal_fence(__ATOMIC_RELEASE);
  // __sync_synchronize is a seq_cst fence.
  // CHECK-NEXT: call void @__detsim_yield_access(ptr null, i32 5)
  // CHECK-NEXT: fence seq_cst
  __sync_synchronize();
  // CHECK-NEXT: ret void
}
