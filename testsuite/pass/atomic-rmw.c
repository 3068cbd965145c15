// Read-modify-write atomics of every operation, integer and floating point,
// at 8 to 128 bits: one yield point (ATOMIC_RMW = 3) right before each.
//
// RUN: %clang -fplugin=%plugin -O0 -Wno-atomic-alignment -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -Wno-atomic-alignment -S -emit-llvm %s -o - | FileCheck %s
// REQUIRES: x86_64
unsigned char u8;
short i16;
int i32;
long i64;
__int128 i128;
float f;
double d;

// CHECK-LABEL: @rmw_all(
void rmw_all(void) {
  // CHECK: call void @__detsim_yield_access(ptr @u8, i32 3)
  // CHECK-NEXT: atomicrmw xchg ptr @u8, i8 {{.*}} seq_cst
  __atomic_exchange_n(&u8, 1, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @u8, i32 3)
  // CHECK-NEXT: atomicrmw nand ptr @u8, i8 {{.*}} seq_cst
  __atomic_fetch_nand(&u8, 3, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @i16, i32 3)
  // CHECK-NEXT: atomicrmw add ptr @i16, i16 {{.*}} monotonic
  __atomic_fetch_add(&i16, 1, __ATOMIC_RELAXED);
  // CHECK: call void @__detsim_yield_access(ptr @i32, i32 3)
  // CHECK-NEXT: atomicrmw sub ptr @i32, i32 {{.*}} acquire
  __atomic_fetch_sub(&i32, 1, __ATOMIC_ACQUIRE);
  // CHECK: call void @__detsim_yield_access(ptr @i32, i32 3)
  // CHECK-NEXT: atomicrmw and ptr @i32, i32 {{.*}} release
  __atomic_fetch_and(&i32, 6, __ATOMIC_RELEASE);
  // CHECK: call void @__detsim_yield_access(ptr @i64, i32 3)
  // CHECK-NEXT: atomicrmw or ptr @i64, i64 {{.*}} acq_rel
  __atomic_fetch_or(&i64, 8, __ATOMIC_ACQ_REL);
  // CHECK: call void @__detsim_yield_access(ptr @i64, i32 3)
  // CHECK-NEXT: atomicrmw xor ptr @i64, i64 {{.*}} seq_cst
  __atomic_fetch_xor(&i64, 9, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @i32, i32 3)
  // CHECK-NEXT: atomicrmw max ptr @i32, i32 {{.*}} seq_cst
  __atomic_fetch_max(&i32, 4, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @i32, i32 3)
  // CHECK-NEXT: atomicrmw min ptr @i32, i32 {{.*}} seq_cst
  __atomic_fetch_min(&i32, 5, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @u8, i32 3)
  // CHECK-NEXT: atomicrmw umax ptr @u8, i8 {{.*}} seq_cst
  __atomic_fetch_max(&u8, 6, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @u8, i32 3)
  // CHECK-NEXT: atomicrmw umin ptr @u8, i8 {{.*}} seq_cst
  __atomic_fetch_min(&u8, 7, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @i128, i32 3)
  // CHECK-NEXT: atomicrmw add ptr @i128, i128 {{.*}} seq_cst
  __atomic_fetch_add(&i128, 1, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @f, i32 3)
  // CHECK-NEXT: atomicrmw fadd ptr @f, float {{.*}} seq_cst
  __atomic_fetch_add(&f, 1.0f, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @d, i32 3)
  // CHECK-NEXT: atomicrmw fsub ptr @d, double {{.*}} seq_cst
  __atomic_fetch_sub(&d, 1.0, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @f, i32 3)
  // CHECK-NEXT: atomicrmw fmax ptr @f, float {{.*}} seq_cst
  __atomic_fetch_max(&f, 2.0f, __ATOMIC_SEQ_CST);
  // CHECK: call void @__detsim_yield_access(ptr @d, i32 3)
  // CHECK-NEXT: atomicrmw fmin ptr @d, double {{.*}} seq_cst
  __atomic_fetch_min(&d, 3.0, __ATOMIC_SEQ_CST);
  // __sync builtins are the same instructions.
  // CHECK: call void @__detsim_yield_access(ptr @i64, i32 3)
  // CHECK-NEXT: atomicrmw add ptr @i64, i64 {{.*}} seq_cst
  __sync_fetch_and_add(&i64, 10);
}
