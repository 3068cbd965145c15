/* Bench 2a, the cost of a thread switch in the simulation.
 *
 *   switch_pingpong N
 *
 * Two threads each do N relaxed atomic fetch-adds on one shared counter
 * while the main thread waits in pthread_join.  In a detsim build each
 * fetch-add is a yield point; with DETSIM_OPTIONS=preempt=1 every yield
 * point switches to the other worker (the only other runnable thread), so
 * the run makes about 2N switches.  The program prints "counter=2N";
 * bench/run.sh checks it, and checks that the run recorded at least 4N
 * events (2N accesses and 2N switches).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static _Atomic uint64_t counter;
static uint64_t n;

static void *worker(void *arg) {
  (void)arg;
  for (uint64_t i = 0; i < n; i++) atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: switch_pingpong N\n");
    return 2;
  }
  n = strtoull(argv[1], NULL, 10);
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    if (pthread_create(&t[i], NULL, worker, NULL) != 0) return 3;
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  uint64_t total = atomic_load_explicit(&counter, memory_order_relaxed);
  printf("counter=%llu\n", (unsigned long long)total);
  return total == 2 * n ? 0 : 1;
}
