// A REWRITE function whose address is taken (a thread start through a
// pointer, a table of lock functions) is replaced there too: no use of the
// original name is left.
//
// RUN: %clang -fplugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s --implicit-check-not=@pthread_mutex_lock --implicit-check-not=@pthread_create
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O2 --implicit-check-not=@pthread_mutex_lock --implicit-check-not=@pthread_create
#include <pthread.h>

typedef int (*lock_fn)(pthread_mutex_t *);
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

// CHECK: @lock_table = {{.*}}global [2 x ptr] [ptr @__detsim_pthread_mutex_lock, ptr @__detsim_pthread_mutex_unlock]
// O2: @lock_table = {{.*}}[ptr @__detsim_pthread_mutex_lock, ptr @__detsim_pthread_mutex_unlock]
lock_fn lock_table[2] = {pthread_mutex_lock, pthread_mutex_unlock};

void *body(void *arg) { return arg; }

// CHECK-LABEL: @start(
// O2-LABEL: @start(
void start(create_fn *slot) {
  // CHECK: store ptr @__detsim_pthread_create, ptr
  // O2: store ptr @__detsim_pthread_create, ptr
  *slot = pthread_create;
}

// A direct call and an address in one call: both replaced.
// CHECK-LABEL: @start_direct(
// O2-LABEL: @start_direct(
int start_direct(pthread_t *t) {
  // CHECK: call i32 @__detsim_pthread_create(ptr noundef %{{[0-9]+}}, ptr noundef null, ptr noundef @body, ptr noundef @__detsim_pthread_mutex_lock)
  // O2: call i32 @__detsim_pthread_create(ptr noundef %{{[0-9a-z]+}}, ptr noundef null, ptr noundef nonnull @body, ptr noundef nonnull @__detsim_pthread_mutex_lock)
  return pthread_create(t, 0, body, (void *)pthread_mutex_lock);
}
