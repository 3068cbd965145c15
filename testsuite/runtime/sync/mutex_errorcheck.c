/* Errorcheck mutexes: relock by the owner EDEADLK, trylock by the owner
 * EBUSY, unlock by a non-owner or of an unlocked mutex EPERM, destroy of a
 * locked one EBUSY; initialized both from an attribute and statically. */
#include "sync_test.h"

static pthread_mutex_t *shared;

static void *other_thread(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_mutex_unlock(shared), EPERM);  /* not the owner */
  EXPECT_EQ(pthread_mutex_trylock(shared), EBUSY); /* owned by main */
  return NULL;
}

static void check(pthread_mutex_t *m) {
  shared = m;
  EXPECT_EQ(pthread_mutex_unlock(m), EPERM); /* unlocked */
  EXPECT_EQ(pthread_mutex_lock(m), 0);
  EXPECT_EQ(pthread_mutex_lock(m), EDEADLK);
  EXPECT_EQ(pthread_mutex_trylock(m), EBUSY);
  struct timespec later = ts_add_ms(ts_now(CLOCK_REALTIME), 10);
  EXPECT_EQ(pthread_mutex_timedlock(m, &later), EDEADLK);
  EXPECT_EQ(pthread_mutex_destroy(m), EBUSY);
  join(spawn(other_thread, NULL));
  EXPECT_EQ(pthread_mutex_unlock(m), 0);
  EXPECT_EQ(pthread_mutex_unlock(m), EPERM); /* once only */
  /* Unlocked again: the other thread can take it now. */
  EXPECT_EQ(pthread_mutex_trylock(m), 0);
  EXPECT_EQ(pthread_mutex_unlock(m), 0);
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutex_t m;
  EXPECT_EQ(pthread_mutexattr_init(&attr), 0);
  EXPECT_EQ(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK), 0);
  EXPECT_EQ(pthread_mutex_init(&m, &attr), 0);
  check(&m);
  EXPECT_EQ(pthread_mutex_destroy(&m), 0);
  EXPECT_EQ(pthread_mutexattr_destroy(&attr), 0);

  static pthread_mutex_t s = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
  check(&s);
  return test_finish("mutex_errorcheck");
}
