/* A failure buried in noise, for simreplay --shrink: four threads do many
 * atomic operations on counters of their own (each a yield point where a
 * random walk may switch), and two of them also add to one shared counter
 * with a separate load and store (a lost update).  main asserts the shared
 * counter's total, so an interleaving that loses an update crashes.
 * A failing seed's recorded plan holds dozens of decisions; the update is
 * lost with one or two. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define NOISE_OPS 200

static atomic_int shared;
static atomic_int own[4];

static void *worker(void *arg) {
  int me = (int)(long)arg;
  for (int i = 0; i < NOISE_OPS; i++) {
    atomic_fetch_add_explicit(&own[me], 1, memory_order_relaxed);
    if (me < 2 && i == NOISE_OPS / 2) {
      int seen = atomic_load(&shared); /* lost update: load ... */
      for (int k = 0; k < 3; k++) atomic_fetch_add_explicit(&own[me], 1, memory_order_relaxed);
      atomic_store(&shared, seen + 1); /* ... then store */
    }
  }
  return NULL;
}

int main(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  printf("shared=%d\n", atomic_load(&shared));
  assert(atomic_load(&shared) == 2);
  return 0;
}
