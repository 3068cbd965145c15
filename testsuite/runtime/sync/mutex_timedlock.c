/* timedlock and clocklock: ETIMEDOUT once virtual time has passed the
 * deadline (and clock_gettime shows it has), 0 when the holder unlocks
 * first (before the deadline), EINVAL for a bad timespec or clock; a normal
 * mutex relocked by its owner with a deadline times out, as glibc. */
#include "sync_test.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *times_out(void *arg) {
  (void)arg;
  struct timespec deadline = ts_add_ms(ts_now(CLOCK_REALTIME), 250);
  EXPECT_EQ(pthread_mutex_timedlock(&m, &deadline), ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_REALTIME), deadline));

  struct timespec mono = ts_add_ms(ts_now(CLOCK_MONOTONIC), 100);
  EXPECT_EQ(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &mono), ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_MONOTONIC), mono));

  /* A deadline already past times out at once. */
  struct timespec past = {1, 0};
  EXPECT_EQ(pthread_mutex_timedlock(&m, &past), ETIMEDOUT);

  struct timespec bad = ts_now(CLOCK_REALTIME);
  bad.tv_nsec = 1000000000L;
  EXPECT_EQ(pthread_mutex_timedlock(&m, &bad), EINVAL);
  bad.tv_nsec = -1;
  EXPECT_EQ(pthread_mutex_timedlock(&m, &bad), EINVAL);
  EXPECT_EQ(pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &mono), EINVAL);
  return NULL;
}

static void *gets_it(void *arg) {
  struct timespec *deadline = arg;
  EXPECT_EQ(pthread_mutex_timedlock(&m, deadline), 0);
  EXPECT(!ts_ge(ts_now(CLOCK_REALTIME), *deadline));
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  return NULL;
}

int main(void) {
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  join(spawn(times_out, NULL));

  struct timespec deadline = ts_add_ms(ts_now(CLOCK_REALTIME), 60000);
  pthread_t t = spawn(gets_it, &deadline);
  sleep_ms(20);
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  join(t);

  /* The owner of a normal mutex waits for itself until the deadline. */
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  struct timespec soon = ts_add_ms(ts_now(CLOCK_REALTIME), 5);
  EXPECT_EQ(pthread_mutex_timedlock(&m, &soon), ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_REALTIME), soon));
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  return test_finish("mutex_timedlock");
}
