/* Recursive mutexes: the owner locks 3 times (lock, trylock, timedlock), a
 * non-owner can neither take nor unlock it meanwhile, it stays held until
 * the third unlock, and then another thread gets it.  A fourth unlock is
 * EPERM. */
#include "sync_test.h"

static pthread_mutex_t m;
static int stage; /* what main has done, read by the other thread */

static void *while_held(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_mutex_trylock(&m), EBUSY);
  EXPECT_EQ(pthread_mutex_unlock(&m), EPERM);
  return NULL;
}

static void *after_release(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_mutex_lock(&m), 0); /* blocks until main's last unlock */
  EXPECT_EQ(stage, 3);
  EXPECT_EQ(pthread_mutex_lock(&m), 0); /* ours now: recursion counts for us */
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  return NULL;
}

int main(void) {
  pthread_mutexattr_t attr;
  EXPECT_EQ(pthread_mutexattr_init(&attr), 0);
  EXPECT_EQ(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE), 0);
  EXPECT_EQ(pthread_mutex_init(&m, &attr), 0);

  struct timespec later = ts_add_ms(ts_now(CLOCK_REALTIME), 10);
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  EXPECT_EQ(pthread_mutex_trylock(&m), 0);
  EXPECT_EQ(pthread_mutex_timedlock(&m, &later), 0);
  join(spawn(while_held, NULL));

  pthread_t t = spawn(after_release, NULL);
  for (int i = 1; i <= 3; i++) {
    sleep_ms(5); /* give the other thread every chance to get it too early */
    stage = i;
    EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  }
  join(t);
  EXPECT_EQ(pthread_mutex_unlock(&m), EPERM);
  EXPECT_EQ(pthread_mutex_destroy(&m), 0);
  return test_finish("mutex_recursive");
}
