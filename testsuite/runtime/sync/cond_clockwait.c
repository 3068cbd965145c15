/* Condition variable clocks: a cond whose attribute says CLOCK_MONOTONIC
 * times its timedwait on that clock; pthread_cond_clockwait uses the clock it
 * is given; a clock other than REALTIME or MONOTONIC is EINVAL (init and
 * clockwait). */
#include "sync_test.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(void) {
  pthread_condattr_t attr;
  pthread_cond_t mono_cond;
  EXPECT_EQ(pthread_condattr_init(&attr), 0);
  EXPECT_EQ(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC), 0);
  EXPECT_EQ(pthread_cond_init(&mono_cond, &attr), 0);
  EXPECT_EQ(pthread_condattr_destroy(&attr), 0);

  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  /* A MONOTONIC deadline: in the REALTIME frame it would lie decades in the
   * past (an immediate timeout); in the MONOTONIC frame it is 2 s away. */
  struct timespec start = ts_now(CLOCK_MONOTONIC);
  struct timespec deadline = ts_add_ms(start, 2000);
  EXPECT_EQ(pthread_cond_timedwait(&mono_cond, &m, &deadline), ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_MONOTONIC), deadline));
  EXPECT_EQ(pthread_cond_destroy(&mono_cond), 0);

  pthread_cond_t c = PTHREAD_COND_INITIALIZER; /* CLOCK_REALTIME */
  deadline = ts_add_ms(ts_now(CLOCK_MONOTONIC), 1500);
  EXPECT_EQ(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &deadline), ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_MONOTONIC), deadline));

  deadline = ts_add_ms(ts_now(CLOCK_REALTIME), 700);
  EXPECT_EQ(pthread_cond_clockwait(&c, &m, CLOCK_REALTIME, &deadline), ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_REALTIME), deadline));

  EXPECT_EQ(pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &deadline), EINVAL);
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);

  EXPECT_EQ(pthread_condattr_init(&attr), 0);
  if (pthread_condattr_setclock(&attr, CLOCK_PROCESS_CPUTIME_ID) == 0) {
    /* glibc refuses it already; if not, init must. */
    pthread_cond_t bad;
    EXPECT_EQ(pthread_cond_init(&bad, &attr), EINVAL);
  }
  EXPECT_EQ(pthread_condattr_destroy(&attr), 0);
  return test_finish("cond_clockwait");
}
