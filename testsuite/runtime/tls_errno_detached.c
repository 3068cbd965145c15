/* TLS and errno stay per thread, and detached threads run to completion. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 5

static _Thread_local int tls_value = 7;
static atomic_int detached_done;
static pthread_key_t key;
static atomic_int destructor_runs;

static void key_destructor(void *p) {
  (void)p;
  atomic_fetch_add(&destructor_runs, 1);
}

static void *tls_worker(void *arg) {
  long id = (long)arg;
  if (tls_value != 7) { printf("FAIL: TLS initial value %d\n", tls_value); exit(1); }
  tls_value = (int)id * 100;
  pthread_setspecific(key, (void *)(id + 1));
  errno = (int)id + 1000;
  for (int i = 0; i < 20; i++) {
    sched_yield();
    if (tls_value != (int)id * 100) { printf("FAIL: TLS of thread %ld changed to %d\n", id, tls_value); exit(1); }
    if (errno != (int)id + 1000) { printf("FAIL: errno of thread %ld changed to %d\n", id, errno); exit(1); }
    if (pthread_getspecific(key) != (void *)(id + 1)) { printf("FAIL: thread-specific data\n"); exit(1); }
  }
  return (void *)(id * 3);
}

static void *detached_worker(void *arg) {
  (void)arg;
  sched_yield();
  atomic_fetch_add(&detached_done, 1);
  return NULL;
}

int main(void) {
  pthread_key_create(&key, key_destructor);
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, tls_worker, (void *)i);
  for (long i = 0; i < THREADS; i++) {
    void *ret;
    if (pthread_join(t[i], &ret) != 0 || ret != (void *)(i * 3)) { printf("FAIL: join value\n"); return 1; }
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  for (int i = 0; i < 3; i++) {
    pthread_t d;
    pthread_create(&d, NULL, detached_worker, NULL);
    pthread_detach(d);
    pthread_create(&d, &attr, detached_worker, NULL);
    /* EINVAL while it runs; once it has finished its id may be gone (ESRCH). */
    int r = pthread_join(d, NULL);
    if (r != EINVAL && r != ESRCH) { printf("FAIL: join of a detached thread gave %d\n", r); return 1; }
  }
  while (atomic_load(&detached_done) < 6) sched_yield();
  if (pthread_join(pthread_self(), NULL) != EDEADLK) { printf("FAIL: self join\n"); return 1; }
  if (tls_value != 7) { printf("FAIL: main TLS\n"); return 1; }
  printf("ok detached=%d\n", atomic_load(&detached_done));
  return 0;
}
