/* Signal and broadcast: with WAITERS threads all waiting, one signal wakes
 * exactly one (the others stay asleep through a long virtual sleep), and one
 * broadcast wakes all the rest.  A waiter is counted as waiting only when it
 * is inside pthread_cond_wait (it registers and waits under the mutex). */
#include "sync_test.h"

#define WAITERS 8

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pthread_cond_t registered_cond = PTHREAD_COND_INITIALIZER;
static int registered, woken, wakeups;
static long first_woken = -1;

static void *waiter(void *arg) {
  long id = (long)arg;
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  registered++;
  EXPECT_EQ(pthread_cond_signal(&registered_cond), 0);
  /* No predicate loop: this test counts real wake-ups (the simulation has no
   * spurious ones). */
  EXPECT_EQ(pthread_cond_wait(&c, &m), 0);
  if (woken++ == 0) first_woken = id;
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  return NULL;
}

int main(void) {
  pthread_t t[WAITERS];
  for (long i = 0; i < WAITERS; i++) t[i] = spawn(waiter, (void *)i);
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  while (registered < WAITERS) EXPECT_EQ(pthread_cond_wait(&registered_cond, &m), 0);
  /* Everyone registered is in pthread_cond_wait now: they registered and
   * waited in one critical section. */
  EXPECT_EQ(pthread_cond_signal(&c), 0);
  wakeups++;
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  sleep_ms(1000);
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  EXPECT_EQ(woken, 1);
  /* Which waiter a signal wakes is the seed's choice. */
  printf("signal woke waiter %ld\n", first_woken);
  EXPECT_EQ(pthread_cond_broadcast(&c), 0);
  wakeups++;
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  for (int i = 0; i < WAITERS; i++) join(t[i]);
  EXPECT_EQ(woken, WAITERS);
  EXPECT_EQ(wakeups, 2);
  /* Nobody waits now: a broadcast and a signal are lost, harmlessly. */
  EXPECT_EQ(pthread_cond_broadcast(&c), 0);
  EXPECT_EQ(pthread_cond_signal(&c), 0);
  EXPECT_EQ(pthread_cond_destroy(&c), 0);
  return test_finish("cond_broadcast");
}
