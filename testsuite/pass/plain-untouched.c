// What the pass must leave alone: plain loads and stores, calls to the
// program's own functions and to library functions the table does not name
// (or classes PASSTHROUGH).  The module is marked, and that is the only
// difference from a build without the plugin.
//
// RUN: %clang -fplugin=%plugin -O0 -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll --implicit-check-not=__detsim
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o %t.O2.ll
// RUN: FileCheck %s --input-file=%t.O2.ll --implicit-check-not=__detsim
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int shared[4];
static int helper(int x) { return x * 3; }

// CHECK-LABEL: @work(
int work(int *p, const char *s) {
  shared[1] = *p + helper(p[2]);
  pthread_mutexattr_t a;
  // CHECK: call i32 @pthread_mutexattr_init(
  pthread_mutexattr_init(&a);
  // CHECK: call i32 @rand()
  int r = rand();
  // CHECK: call {{.*}}@strlen(
  return shared[1] + r + (int)strlen(s);
}
// CHECK: !detsim.instrumented
