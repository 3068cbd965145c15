// -fpass-plugin= alone instruments (without the frontend plugin there is no
// __DETSIM__), and loading the library both ways instruments once: the
// second run of the pass sees the detsim.instrumented marker.  Exactly one
// yield point per atomic, one rename, one marker.
//
// RUN: %clang -fpass-plugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,PASSONLY
// RUN: %clang -fpass-plugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,PASSONLY
// RUN: %clang -fplugin=%plugin -fpass-plugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,BOTH
// RUN: %clang -fplugin=%plugin -fpass-plugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,BOTH
#include <stdatomic.h>
#include <unistd.h>

#ifdef __DETSIM__
int frontend = 1;
#else
int frontend = 0;
#endif
// PASSONLY: @frontend = {{.*}}global i32 0
// BOTH: @frontend = {{.*}}global i32 1

_Atomic int a;

// CHECK-LABEL: @f(
int f(void) {
  // CHECK: call void @__detsim_yield_access(ptr @a, i32 3)
  // CHECK-NEXT: atomicrmw add ptr @a
  // CHECK-NOT: __detsim_yield_access
  // CHECK: call void @__detsim_yield_access(ptr @a, i32 1)
  // CHECK-NEXT: load atomic i32, ptr @a
  // CHECK-NOT: __detsim_yield_access
  // CHECK: call i32 @__detsim_usleep(
  a++;
  int v = a;
  return v + usleep(1);
}
// CHECK-NOT: __detsim___detsim
// CHECK: !detsim.instrumented = !{![[MD:[0-9]+]]}
// CHECK: ![[MD]] = !{i32 2}
