/* A verify build evaluates DETSIM_VERIFY checks that read shared atomics;
 * its history must equal the plain simulation build's for every seed.  What
 * a check prints is not output of the program (its writes, like its yield
 * points, are not events): the count is printed from a check. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include <detsim.h>

static atomic_int balance_a = 100, balance_b = 100;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int verify_evaluations;

static int total_is_conserved(void) {
  verify_evaluations++;
  return atomic_load(&balance_a) + atomic_load(&balance_b) == 200;
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
  pthread_t t1, t2;
  pthread_create(&t1, NULL, transfer, (void *)1L);
  pthread_create(&t2, NULL, transfer, (void *)-1L);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("a=%d b=%d\n", atomic_load(&balance_a), atomic_load(&balance_b));
  /* stderr, so stdout stays identical between the builds; from a check,
   * so the history does too */
  DETSIM_VERIFY(report_evaluations());
  return 0;
}
