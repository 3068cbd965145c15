/* Spinlocks: THREADS threads add ROUNDS each to a plain counter under a
 * spinlock, yielding inside; the total is exact and nobody is ever inside
 * together; trylock is EBUSY while another thread holds it. */
#include "sync_test.h"

#include <sched.h>

#define THREADS 5
#define ROUNDS 200

static pthread_spinlock_t lock;
static long counter;
static int inside;

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    REQUIRE_EQ(pthread_spin_lock(&lock), 0);
    EXPECT_EQ(inside, 0);
    inside = 1;
    long v = counter;
    sched_yield();
    counter = v + 1;
    inside = 0;
    REQUIRE_EQ(pthread_spin_unlock(&lock), 0);
  }
  return NULL;
}

static void *try_busy(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_spin_trylock(&lock), EBUSY);
  return NULL;
}

int main(void) {
  EXPECT_EQ(pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE), 0);
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) t[i] = spawn(worker, NULL);
  for (int i = 0; i < THREADS; i++) join(t[i]);
  EXPECT_EQ(counter, THREADS * ROUNDS);

  EXPECT_EQ(pthread_spin_lock(&lock), 0);
  join(spawn(try_busy, NULL));
  EXPECT_EQ(pthread_spin_unlock(&lock), 0);
  EXPECT_EQ(pthread_spin_trylock(&lock), 0);
  EXPECT_EQ(pthread_spin_unlock(&lock), 0);
  EXPECT_EQ(pthread_spin_destroy(&lock), 0);
  return test_finish("spin");
}
