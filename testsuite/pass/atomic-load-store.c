// Atomic loads and stores at every width from 8 to 128 bits get a yield
// point right before them, with the accessed address and the kind
// (pass_abi.h: ATOMIC_LOAD = 1, ATOMIC_STORE = 2).
//
// RUN: %clang -fplugin=%plugin -O0 -Wno-atomic-alignment -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -Wno-atomic-alignment -S -emit-llvm %s -o - | FileCheck %s
// REQUIRES: x86_64
#include <stdatomic.h>

_Atomic char a8;
_Atomic short a16;
_Atomic int a32;
_Atomic long a64;
_Atomic float af;
__int128 a128;

// CHECK-LABEL: @load_all(
long load_all(void) {
  // CHECK: call void @__detsim_yield_access(ptr @a8, i32 1)
  // CHECK-NEXT: load atomic i8, ptr @a8 seq_cst
  long r = atomic_load(&a8);
  // CHECK: call void @__detsim_yield_access(ptr @a16, i32 1)
  // CHECK-NEXT: load atomic i16, ptr @a16 acquire
  r += atomic_load_explicit(&a16, memory_order_acquire);
  // CHECK: call void @__detsim_yield_access(ptr @a32, i32 1)
  // CHECK-NEXT: load atomic i32, ptr @a32 monotonic
  r += atomic_load_explicit(&a32, memory_order_relaxed);
  // CHECK: call void @__detsim_yield_access(ptr @a64, i32 1)
  // CHECK-NEXT: load atomic i64, ptr @a64 seq_cst
  r += atomic_load(&a64);
  // CHECK: call void @__detsim_yield_access(ptr @af, i32 1)
  // CHECK-NEXT: load atomic i32, ptr @af seq_cst
  r += (long)atomic_load(&af);
  // CHECK: call void @__detsim_yield_access(ptr @a128, i32 1)
  // CHECK-NEXT: load atomic i128, ptr @a128 acquire
  r += (long)__atomic_load_n(&a128, __ATOMIC_ACQUIRE);
  return r;
}

// CHECK-LABEL: @store_all(
void store_all(long v) {
  // CHECK: call void @__detsim_yield_access(ptr @a8, i32 2)
  // CHECK-NEXT: store atomic i8 {{.*}}, ptr @a8 seq_cst
  atomic_store(&a8, (char)v);
  // CHECK: call void @__detsim_yield_access(ptr @a16, i32 2)
  // CHECK-NEXT: store atomic i16 {{.*}}, ptr @a16 release
  atomic_store_explicit(&a16, (short)v, memory_order_release);
  // CHECK: call void @__detsim_yield_access(ptr @a32, i32 2)
  // CHECK-NEXT: store atomic i32 {{.*}}, ptr @a32 monotonic
  atomic_store_explicit(&a32, (int)v, memory_order_relaxed);
  // CHECK: call void @__detsim_yield_access(ptr @a64, i32 2)
  // CHECK-NEXT: store atomic i64 {{.*}}, ptr @a64 seq_cst
  atomic_store(&a64, v);
  // CHECK: call void @__detsim_yield_access(ptr @a128, i32 2)
  // CHECK-NEXT: store atomic i128 {{.*}}, ptr @a128 release
  __atomic_store_n(&a128, v, __ATOMIC_RELEASE);
}

// A pointer argument, not a global: the yield point names the same value.
// CHECK-LABEL: @load_through(
int load_through(_Atomic int *p) {
  // CHECK: call void @__detsim_yield_access(ptr [[P:%[a-z0-9.]+]], i32 1)
  // CHECK-NEXT: load atomic i32, ptr [[P]] seq_cst
  return atomic_load(p);
}
