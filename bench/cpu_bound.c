/* Bench 3b, a CPU-bound multithreaded program with few sync points.
 *
 *   cpu_bound THREADS KIB ROUNDS
 *
 * THREADS threads each fill a private buffer of KIB KiB (from the thread's
 * index) and hash it ROUNDS times with a multiply-xorshift hash; the main
 * thread joins them and prints the combined hash.  The only sync points are
 * pthread_create and pthread_join, so this measures what a tool costs on
 * plain computation and memory reads.  The hash depends only on the
 * arguments; bench/run.sh checks it against the value for its parameters.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

static size_t words;
static unsigned rounds;
static uint64_t result[MAX_THREADS];

static void *worker(void *arg) {
  unsigned index = (unsigned)(uintptr_t)arg;
  uint64_t *buf = malloc(words * sizeof *buf);
  if (buf == NULL) abort();
  uint64_t x = 0x243f6a8885a308d3ull ^ index;
  for (size_t i = 0; i < words; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
    buf[i] = x;
  }
  uint64_t h = index;
  for (unsigned r = 0; r < rounds; r++)
    for (size_t i = 0; i < words; i++) {
      h = (h ^ buf[i]) * 0xff51afd7ed558ccdull;
      h ^= h >> 29;
    }
  free(buf);
  result[index] = h;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: cpu_bound THREADS KIB ROUNDS\n");
    return 2;
  }
  unsigned threads = (unsigned)strtoul(argv[1], NULL, 10);
  words = (size_t)strtoull(argv[2], NULL, 10) * 1024 / sizeof(uint64_t);
  rounds = (unsigned)strtoul(argv[3], NULL, 10);
  if (threads == 0 || threads > MAX_THREADS || words == 0) return 2;
  pthread_t t[MAX_THREADS];
  for (unsigned i = 0; i < threads; i++)
    if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i) != 0) return 3;
  uint64_t combined = 0;
  for (unsigned i = 0; i < threads; i++) {
    pthread_join(t[i], NULL);
    combined = (combined << 7 | combined >> 57) ^ result[i];
  }
  printf("hash=%016llx\n", (unsigned long long)combined);
  return 0;
}
