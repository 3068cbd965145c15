/* counter.c: a small multithreaded program (a copy of ../programs/counter.c,
 * so that this project stands alone).
 *
 * THREADS threads each add ROUNDS to a mutex-protected counter and to a C11
 * atomic; main joins them and checks both totals exactly.  In a simulation
 * build the mutex calls are rewritten and the atomics get yield points, so
 * the binary shows both the runtime and the instrumentation.
 *
 *   counter [--fail-on-seed N]   exit 3 when DETSIM_SEED is N (an `exit`
 *                                failure for the CTest integration)
 */
#include <detsim.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 3
#define ROUNDS 50

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static atomic_long atomic_counter;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
    atomic_fetch_add(&atomic_counter, 1);
    detsim_progress();
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *seed = getenv("DETSIM_SEED");
  if (argc == 3 && strcmp(argv[1], "--fail-on-seed") == 0 && seed != NULL &&
      strcmp(seed, argv[2]) == 0) {
    printf("failing on purpose for seed %s\n", seed);
    return 3;
  }
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    if (pthread_create(&t[i], NULL, worker, NULL) != 0) return 2;
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  DETSIM_CHECK(counter == THREADS * ROUNDS, "counter_total");
  DETSIM_VERIFY(atomic_load(&atomic_counter) == THREADS * ROUNDS);
  if (counter != THREADS * ROUNDS || atomic_load(&atomic_counter) != THREADS * ROUNDS) {
    printf("wrong totals: %ld %ld\n", counter, (long)atomic_load(&atomic_counter));
    return 1;
  }
  printf("counter=%ld detsim=%d seed=%s\n", counter, detsim_active(), seed ? seed : "-");
  return 0;
}
