/* A lost update through two atomic operations: each thread loads the counter
 * and stores load+1 (not an atomic increment).  A switch between the load
 * and the store loses an update; the final assert catches it. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define THREADS 2
#define ROUNDS 50

static atomic_int counter;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    int v = atomic_load(&counter);
    atomic_store(&counter, v + 1);
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  printf("counter=%d\n", atomic_load(&counter));
  assert(atomic_load(&counter) == THREADS * ROUNDS);
  return 0;
}
