// Direct calls to REWRITE functions, with the real headers, go to
// __detsim_<name> with the same type; the old declarations are gone.
// PASSTHROUGH functions and the program's other calls keep their names.
//
// RUN: %clang -fplugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
#include <pthread.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

void helper(void);
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

// CHECK-LABEL: @locked_sleep(
int locked_sleep(void) {
  // CHECK: call i32 @__detsim_pthread_mutex_lock(ptr noundef {{.*}}@m)
  pthread_mutex_lock(&m);
  // CHECK: call i32 @__detsim_usleep(i32 noundef 5)
  usleep(5);
  // CHECK: call void @helper()
  helper();
  struct timespec ts;
  // CHECK: call i32 @__detsim_clock_gettime(i32 noundef 1, ptr
  clock_gettime(CLOCK_MONOTONIC, &ts);
  char buf[8];
  // CHECK: call i64 @__detsim_getrandom(ptr
  getrandom(buf, sizeof buf, 0);
  // CHECK: call i32 @rand()
  int r = rand();
  // CHECK: call i32 @__detsim_pthread_mutex_unlock(ptr noundef {{.*}}@m)
  pthread_mutex_unlock(&m);
  return r + buf[0] + (int)ts.tv_nsec;
}

// CHECK-NOT: declare {{.*}} @pthread_mutex_lock(
// CHECK-NOT: declare {{.*}} @usleep(
// CHECK-NOT: declare {{.*}} @clock_gettime(
// CHECK-NOT: declare {{.*}} @getrandom(
// CHECK-NOT: declare {{.*}} @pthread_mutex_unlock(
// CHECK: !detsim.instrumented = !{![[MD:[0-9]+]]}
// CHECK: ![[MD]] = !{i32 2}
