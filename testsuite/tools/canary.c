/* The sweep canary: a planted ABBA lock-order inversion that every sweep of
 * seeds 1-100 must find (as TigerBeetle's canary fuzzer: a harness that
 * stops finding it is broken).  One thread takes A then B, the other B then
 * A; when each holds its first lock both block forever: class deadlock.
 *
 * Built with -DCANARY_EXTRA_YIELD it yields once more at the start, so the
 * two builds take different histories from a known event on (the
 * simreplay --compare test). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static int shared;

static void *take_a_then_b(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock_a);
  pthread_mutex_lock(&lock_b);
  shared++;
  pthread_mutex_unlock(&lock_b);
  pthread_mutex_unlock(&lock_a);
  return NULL;
}

static void *take_b_then_a(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock_b);
  pthread_mutex_lock(&lock_a);
  shared++;
  pthread_mutex_unlock(&lock_a);
  pthread_mutex_unlock(&lock_b);
  return NULL;
}

int main(void) {
#ifdef CANARY_EXTRA_YIELD
  sched_yield();
#endif
  pthread_t t1, t2;
  pthread_create(&t1, NULL, take_a_then_b, NULL);
  pthread_create(&t2, NULL, take_b_then_a, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("shared=%d\n", shared);
  return 0;
}
