// Compare-exchange, strong and weak, at 8 to 128 bits: one yield point
// (ATOMIC_CMPXCHG = 4) before each cmpxchg instruction, and only one even
// though a C11 compare-exchange also loads and stores `expected`.
//
// RUN: %clang -fplugin=%plugin -O0 -Wno-atomic-alignment -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -Wno-atomic-alignment -S -emit-llvm %s -o - | FileCheck %s
// REQUIRES: x86_64
#include <stdatomic.h>
#include <stdbool.h>

_Atomic char c8;
_Atomic short c16;
_Atomic int c32;
_Atomic long c64;
__int128 c128;

// CHECK-LABEL: @cas_all(
int cas_all(void) {
  int ok = 0;
  char e8 = 0;
  // CHECK: call void @__detsim_yield_access(ptr @c8, i32 4)
  // CHECK-NEXT: cmpxchg ptr @c8, i8 {{.*}} seq_cst seq_cst
  ok += atomic_compare_exchange_strong(&c8, &e8, 1);
  short e16 = 0;
  // CHECK: call void @__detsim_yield_access(ptr @c16, i32 4)
  // CHECK-NEXT: cmpxchg weak ptr @c16, i16 {{.*}} seq_cst seq_cst
  ok += atomic_compare_exchange_weak(&c16, &e16, 1);
  int e32 = 0;
  // CHECK: call void @__detsim_yield_access(ptr @c32, i32 4)
  // CHECK-NEXT: cmpxchg ptr @c32, i32 {{.*}} acq_rel acquire
  ok += atomic_compare_exchange_strong_explicit(&c32, &e32, 1, memory_order_acq_rel, memory_order_acquire);
  long e64 = 0;
  // CHECK: call void @__detsim_yield_access(ptr @c64, i32 4)
  // CHECK-NEXT: cmpxchg weak ptr @c64, i64 {{.*}} release monotonic
  ok += atomic_compare_exchange_weak_explicit(&c64, &e64, 1, memory_order_release, memory_order_relaxed);
  __int128 e128 = 0;
  // CHECK: call void @__detsim_yield_access(ptr @c128, i32 4)
  // CHECK-NEXT: cmpxchg ptr @c128, i128 {{.*}} seq_cst seq_cst
  ok += __atomic_compare_exchange_n(&c128, &e128, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @c32, i32 4)
  // CHECK-NEXT: cmpxchg ptr @c32, i32 7, i32 8 seq_cst seq_cst
  ok += __sync_bool_compare_and_swap((int *)&c32, 7, 8);
  return ok;
}
// CHECK-NOT: __detsim_yield_access(ptr {{.*}}, i32 4)
// CHECK-LABEL: declare void @__detsim_yield_access(ptr, i32)
