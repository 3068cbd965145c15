/* Reader-writer locks: READERS readers hold the read lock at once (they meet
 * at a barrier inside it, which would deadlock if they could not); a writer
 * is alone (no reader or writer inside with it, across many mixed rounds);
 * tryrdlock is EBUSY under a writer and trywrlock under a reader; the write
 * owner's relock is EDEADLK; timedwrlock times out under a reader; unlock of
 * an unheld lock is EPERM; destroy of a held one EBUSY. */
#include "sync_test.h"

#include <sched.h>

#define READERS 5
#define MIXED 6
#define ROUNDS 40

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t inside_barrier;
static int readers_inside, writers_inside;
static long written;

static void *concurrent_reader(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_rwlock_rdlock(&rw), 0);
  pthread_barrier_wait(&inside_barrier); /* all READERS hold it together */
  EXPECT_EQ(pthread_rwlock_unlock(&rw), 0);
  return NULL;
}

static void *mixed(void *arg) {
  long id = (long)arg;
  for (int i = 0; i < ROUNDS; i++) {
    if ((i + id) % 3 == 0) {
      EXPECT_EQ(pthread_rwlock_wrlock(&rw), 0);
      EXPECT_EQ(readers_inside, 0);
      EXPECT_EQ(writers_inside, 0);
      writers_inside++;
      long v = written;
      sched_yield();
      written = v + 1;
      writers_inside--;
      EXPECT_EQ(pthread_rwlock_unlock(&rw), 0);
    } else {
      EXPECT_EQ(pthread_rwlock_rdlock(&rw), 0);
      EXPECT_EQ(writers_inside, 0);
      __atomic_add_fetch(&readers_inside, 1, __ATOMIC_SEQ_CST);
      sched_yield();
      EXPECT_EQ(writers_inside, 0);
      __atomic_sub_fetch(&readers_inside, 1, __ATOMIC_SEQ_CST);
      EXPECT_EQ(pthread_rwlock_unlock(&rw), 0);
    }
  }
  return NULL;
}

static void *under_writer(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_rwlock_tryrdlock(&rw), EBUSY);
  EXPECT_EQ(pthread_rwlock_trywrlock(&rw), EBUSY);
  struct timespec deadline = ts_add_ms(ts_now(CLOCK_REALTIME), 100);
  EXPECT_EQ(pthread_rwlock_timedrdlock(&rw, &deadline), ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_REALTIME), deadline));
  EXPECT_EQ(pthread_rwlock_unlock(&rw), EPERM); /* not the writer */
  return NULL;
}

static void *under_reader(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_rwlock_trywrlock(&rw), EBUSY);
  EXPECT_EQ(pthread_rwlock_tryrdlock(&rw), 0); /* readers share */
  EXPECT_EQ(pthread_rwlock_unlock(&rw), 0);
  struct timespec deadline = ts_add_ms(ts_now(CLOCK_MONOTONIC), 100);
  EXPECT_EQ(pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &deadline), ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_MONOTONIC), deadline));
  return NULL;
}

int main(void) {
  EXPECT_EQ(pthread_rwlock_unlock(&rw), EPERM); /* not held */

  /* Readers together. */
  EXPECT_EQ(pthread_barrier_init(&inside_barrier, NULL, READERS), 0);
  pthread_t t[MIXED];
  for (int i = 0; i < READERS; i++) t[i] = spawn(concurrent_reader, NULL);
  for (int i = 0; i < READERS; i++) join(t[i]);
  EXPECT_EQ(pthread_barrier_destroy(&inside_barrier), 0);

  /* A writer alone. */
  EXPECT_EQ(pthread_rwlock_wrlock(&rw), 0);
  EXPECT_EQ(pthread_rwlock_wrlock(&rw), EDEADLK);
  EXPECT_EQ(pthread_rwlock_rdlock(&rw), EDEADLK);
  EXPECT_EQ(pthread_rwlock_tryrdlock(&rw), EBUSY);
  EXPECT_EQ(pthread_rwlock_destroy(&rw), EBUSY);
  join(spawn(under_writer, NULL));
  EXPECT_EQ(pthread_rwlock_unlock(&rw), 0);

  /* Under a reader. */
  EXPECT_EQ(pthread_rwlock_rdlock(&rw), 0);
  EXPECT_EQ(pthread_rwlock_rdlock(&rw), 0); /* read locks nest */
  join(spawn(under_reader, NULL));
  EXPECT_EQ(pthread_rwlock_unlock(&rw), 0);
  EXPECT_EQ(pthread_rwlock_unlock(&rw), 0);
  EXPECT_EQ(pthread_rwlock_unlock(&rw), EPERM);

  /* Mixed readers and writers. */
  for (long i = 0; i < MIXED; i++) t[i] = spawn(mixed, (void *)i);
  for (int i = 0; i < MIXED; i++) join(t[i]);
  long writes = 0;
  for (long id = 0; id < MIXED; id++)
    for (int i = 0; i < ROUNDS; i++) writes += (i + id) % 3 == 0;
  EXPECT_EQ(written, writes);
  EXPECT_EQ(readers_inside, 0);
  EXPECT_EQ(pthread_rwlock_destroy(&rw), 0);
  return test_finish("rwlock");
}
