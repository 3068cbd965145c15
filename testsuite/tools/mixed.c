/* One way to end per seed, chosen by DETSIM_SEED modulo 4, so a sweep over
 * seeds 1-8 has exactly two of each:
 *   1  crash: abort()                       -> crash signal=SIGABRT
 *   2  deadlock: main holds m and joins a thread waiting for m -> deadlock
 *   3  hang: a spin in inline asm, which no yield point or interceptor
 *      sees; with the watchdog off only simrun's --timeout ends it (its
 *      SIGTERM: the runtime ends the run after a grace)
 *                                           -> inconclusive reason=timeout signal=SIGTERM
 *   0  pass
 * Reading the seed is fine: it is the same in every replay. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <detsim.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *wants_m(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  const char *s = getenv("DETSIM_SEED");
  unsigned long long seed = s ? strtoull(s, NULL, 10) : 0;
  for (int i = 0; i < 3; i++) DETSIM_CHECK(i < 3, "loop bound");
  switch (seed % 4) {
  case 1:
    abort();
  case 2: {
    pthread_t t;
    pthread_mutex_lock(&m);
    pthread_create(&t, NULL, wants_m, NULL);
    pthread_join(t, NULL);
    break;
  }
  case 3:
    for (;;) __asm__ volatile("" ::: "memory");
  default:
    break;
  }
  printf("seed %llu passed\n", seed);
  return 0;
}
