// Atomics wider than the lock-free size become libatomic calls in the IR: a
// 32-byte struct and an _Atomic __int128 (without -mcx16) go through the
// generic __atomic_load / __atomic_store / __atomic_exchange /
// __atomic_compare_exchange(size, ptr, ...).  Each call gets a yield point
// (LIBATOMIC_CALL = 6) naming the object, argument 1, and stays a call to
// libatomic.
//
// RUN: %clang -fplugin=%plugin -O0 -Wno-atomic-alignment -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -Wno-atomic-alignment -S -emit-llvm %s -o - | FileCheck %s
// REQUIRES: x86_64
#include <stdatomic.h>

struct quad { long a, b, c, d; };
_Atomic struct quad q;
_Atomic __int128 wide;

// CHECK-LABEL: @generic(
long generic(struct quad v) {
  // CHECK: call void @__detsim_yield_access(ptr @q, i32 6)
  // CHECK-NEXT: call void @__atomic_load(i64 noundef 32, ptr noundef {{.*}}@q,
  struct quad old = atomic_load(&q);
  // CHECK: call void @__detsim_yield_access(ptr @q, i32 6)
  // CHECK-NEXT: call void @__atomic_store(i64 noundef 32, ptr noundef {{.*}}@q,
  atomic_store(&q, v);
  // CHECK: call void @__detsim_yield_access(ptr @q, i32 6)
  // CHECK-NEXT: call void @__atomic_exchange(i64 noundef 32, ptr noundef {{.*}}@q,
  old = atomic_exchange(&q, old);
  // CHECK: call void @__detsim_yield_access(ptr @q, i32 6)
  // CHECK-NEXT: call {{.*}}i1 @__atomic_compare_exchange(i64 noundef 32, ptr noundef {{.*}}@q,
  int ok = atomic_compare_exchange_strong(&q, &old, v);
  // Reading an _Atomic __int128 by name is a generic libatomic call...
  // CHECK: call void @__detsim_yield_access(ptr @wide, i32 6)
  // CHECK-NEXT: call void @__atomic_load(i64 noundef 16, ptr noundef {{.*}}@wide,
  __int128 w = wide;
  // ...while atomic_load() of it is an i128 load instruction (ATOMIC_LOAD).
  // CHECK: call void @__detsim_yield_access(ptr @wide, i32 1)
  // CHECK-NEXT: load atomic i128, ptr @wide seq_cst
  w += atomic_load(&wide);
  return old.a + ok + (long)w;
}
// CHECK-DAG: declare {{.*}}void @__atomic_load(
// CHECK-DAG: declare {{.*}}void @__atomic_store(
