/* pthread_cond_timedwait: ETIMEDOUT with the mutex held again once virtual
 * time has passed the deadline; 0 when a signal comes before the deadline;
 * EINVAL for a bad timespec; an errorcheck mutex the caller does not hold
 * gives EPERM. */
#include "sync_test.h"

static pthread_mutex_t m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int flag;

static void *signaller(void *arg) {
  (void)arg;
  sleep_ms(30);
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  flag = 1;
  EXPECT_EQ(pthread_cond_signal(&c), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  return NULL;
}

static void *holds_nothing(void *arg) {
  (void)arg;
  struct timespec deadline = ts_add_ms(ts_now(CLOCK_REALTIME), 10);
  EXPECT_EQ(pthread_cond_timedwait(&c, &m, &deadline), EPERM);
  EXPECT_EQ(pthread_cond_wait(&c, &m), EPERM);
  return NULL;
}

int main(void) {
  /* Nobody signals: times out. */
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  struct timespec deadline = ts_add_ms(ts_now(CLOCK_REALTIME), 500);
  EXPECT_EQ(pthread_cond_timedwait(&c, &m, &deadline), ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_REALTIME), deadline));
  EXPECT_EQ(pthread_mutex_lock(&m), EDEADLK); /* held again */

  /* Bad timespecs. */
  struct timespec bad = deadline;
  bad.tv_nsec = 1000000000L;
  EXPECT_EQ(pthread_cond_timedwait(&c, &m, &bad), EINVAL);
  bad.tv_nsec = -5;
  EXPECT_EQ(pthread_cond_timedwait(&c, &m, &bad), EINVAL);
  EXPECT_EQ(pthread_mutex_lock(&m), EDEADLK); /* still held */

  /* A signal before the deadline wakes us. */
  pthread_t t = spawn(signaller, NULL);
  deadline = ts_add_ms(ts_now(CLOCK_REALTIME), 3600 * 1000);
  int rc = 0;
  while (!flag && rc == 0) rc = pthread_cond_timedwait(&c, &m, &deadline);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(flag, 1);
  EXPECT(!ts_ge(ts_now(CLOCK_REALTIME), deadline));
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  join(t);

  join(spawn(holds_nothing, NULL));
  EXPECT_EQ(pthread_cond_destroy(&c), 0);
  return test_finish("cond_timedwait");
}
