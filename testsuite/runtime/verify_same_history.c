/* A verify build evaluates DETSIM_VERIFY checks that read shared atomics
 * and do real work (a checksum over a table); its history must equal the
 * plain simulation build's for every seed, and so must the virtual time it
 * prints: the cost model counts the work instrumented code does, and a
 * check's own work must not count.  What a check prints is not output of
 * the program (its writes, like its yield points, are not events): the
 * count is printed from a check. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include <detsim.h>

static atomic_int balance_a = 100, balance_b = 100;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int verify_evaluations;

static unsigned table[512];

static int total_is_conserved(void) {
  verify_evaluations++;
  unsigned sum = 0;
  for (unsigned i = 0; i < sizeof table / sizeof table[0]; i++) sum = sum * 31 + table[i] + i;
  return atomic_load(&balance_a) + atomic_load(&balance_b) == 200 && sum != 1;
}

__attribute__((unused)) static int report_evaluations(void) {
  fprintf(stderr, "verify evaluations: %d\n", verify_evaluations);
  return 1;
}

static void *transfer(void *arg) {
  int amount = (int)(long)arg;
  for (int i = 0; i < 20; i++) {
    pthread_mutex_lock(&m);
    atomic_fetch_sub(&balance_a, amount);
    atomic_fetch_add(&balance_b, amount);
    DETSIM_VERIFY(total_is_conserved());
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

int main(void) {
  struct timespec t0, t9;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_t t1, t2;
  pthread_create(&t1, NULL, transfer, (void *)1L);
  pthread_create(&t2, NULL, transfer, (void *)-1L);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  clock_gettime(CLOCK_MONOTONIC, &t9);
  printf("a=%d b=%d\n", atomic_load(&balance_a), atomic_load(&balance_b));
  printf("elapsed_ns=%lld\n", (long long)(t9.tv_sec - t0.tv_sec) * 1000000000ll + (t9.tv_nsec - t0.tv_nsec));
  /* stderr, so stdout stays identical between the builds; from a check,
   * so the history does too */
  DETSIM_VERIFY(report_evaluations());
  return 0;
}
