/* Mutual exclusion: THREADS threads each add ROUNDS to a plain counter under
 * a mutex, yielding inside the critical section; nobody is ever inside
 * together, and the total is exact. */
#include "sync_test.h"

#include <sched.h>

#define THREADS 6
#define ROUNDS 200

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int inside;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    REQUIRE_EQ(pthread_mutex_lock(&m), 0);
    EXPECT_EQ(inside, 0);
    inside = 1;
    long v = counter;
    sched_yield(); /* another thread runs here if it can */
    counter = v + 1;
    inside = 0;
    REQUIRE_EQ(pthread_mutex_unlock(&m), 0);
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) t[i] = spawn(worker, NULL);
  for (int i = 0; i < THREADS; i++) join(t[i]);
  EXPECT_EQ(counter, THREADS * ROUNDS);
  return test_finish("mutex_counter");
}
