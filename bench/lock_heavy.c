/* Bench 3a, a lock-heavy program.
 *
 *   lock_heavy THREADS ITERS
 *
 * THREADS threads each take one shared pthread mutex ITERS times; between
 * two lock/unlock pairs a thread does a little arithmetic of its own (eight
 * steps of a 64-bit LCG), and inside the lock it bumps a shared counter and
 * adds its LCG value to a shared sum.  The program prints the counter
 * (exactly THREADS*ITERS) and the sum (the same in every interleaving, since
 * addition commutes); bench/run.sh checks both, so a build that lost the
 * lock's mutual exclusion cannot pass for a fast one.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t counter, sum;
static uint64_t iters;

static void *worker(void *arg) {
  uint64_t x = (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
  for (uint64_t i = 0; i < iters; i++) {
    for (int k = 0; k < 8; k++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    pthread_mutex_lock(&lock);
    counter++;
    sum += x >> 32;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: lock_heavy THREADS ITERS\n");
    return 2;
  }
  unsigned threads = (unsigned)strtoul(argv[1], NULL, 10);
  iters = strtoull(argv[2], NULL, 10);
  if (threads == 0 || threads > MAX_THREADS) return 2;
  pthread_t t[MAX_THREADS];
  for (unsigned i = 0; i < threads; i++)
    if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i) != 0) return 3;
  for (unsigned i = 0; i < threads; i++) pthread_join(t[i], NULL);
  printf("counter=%llu sum=%llu\n", (unsigned long long)counter, (unsigned long long)sum);
  return counter == threads * iters ? 0 : 1;
}
