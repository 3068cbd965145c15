/* C11 <threads.h>: mtx plain/recursive/timed with thrd_success, thrd_busy,
 * thrd_timedout and thrd_error; cnd_wait/cnd_signal handshake, cnd_broadcast
 * to all waiters, cnd_timedwait thrd_timedout; call_once exactly once
 * across THREADS threads. */
#include "sync_test.h"

#include <threads.h>

#define THREADS 8

static mtx_t m;
static cnd_t c, ready_c;
static int ready, go, woken;
static once_flag flag = ONCE_FLAG_INIT;
static int once_runs;

static void once_routine(void) {
  once_runs++;
  sleep_ms(5);
}

static int once_caller(void *arg) {
  (void)arg;
  call_once(&flag, once_routine);
  EXPECT_EQ(once_runs, 1);
  return 0;
}

static int busy_checker(void *arg) {
  (void)arg;
  EXPECT_EQ(mtx_trylock(&m), thrd_busy);
  struct timespec deadline;
  EXPECT_EQ(timespec_get(&deadline, TIME_UTC), TIME_UTC);
  deadline = ts_add_ms(deadline, 50);
  EXPECT_EQ(mtx_timedlock(&m, &deadline), thrd_timedout);
  EXPECT(ts_ge(ts_now(CLOCK_REALTIME), deadline));
  return 0;
}

static int waiter(void *arg) {
  (void)arg;
  EXPECT_EQ(mtx_lock(&m), thrd_success);
  ready++;
  EXPECT_EQ(cnd_signal(&ready_c), thrd_success);
  while (!go) EXPECT_EQ(cnd_wait(&c, &m), thrd_success);
  woken++;
  EXPECT_EQ(mtx_unlock(&m), thrd_success);
  return 7;
}

int main(void) {
  EXPECT_EQ(mtx_init(&m, 12345), thrd_error);
  EXPECT_EQ(mtx_init(&m, mtx_timed), thrd_success);
  EXPECT_EQ(cnd_init(&c), thrd_success);
  EXPECT_EQ(cnd_init(&ready_c), thrd_success);

  /* Plain/timed: not recursive; busy for others. */
  EXPECT_EQ(mtx_lock(&m), thrd_success);
  EXPECT_EQ(mtx_trylock(&m), thrd_busy);
  thrd_t t;
  EXPECT_EQ(thrd_create(&t, busy_checker, NULL), thrd_success);
  EXPECT_EQ(thrd_join(t, NULL), thrd_success);
  EXPECT_EQ(mtx_unlock(&m), thrd_success);

  /* Recursive. */
  mtx_t r;
  EXPECT_EQ(mtx_init(&r, mtx_plain | mtx_recursive), thrd_success);
  EXPECT_EQ(mtx_lock(&r), thrd_success);
  EXPECT_EQ(mtx_trylock(&r), thrd_success);
  EXPECT_EQ(mtx_unlock(&r), thrd_success);
  EXPECT_EQ(mtx_unlock(&r), thrd_success);
  EXPECT_EQ(mtx_unlock(&r), thrd_error); /* EPERM */
  mtx_destroy(&r);

  /* Condition variables: THREADS waiters, one broadcast. */
  thrd_t w[THREADS];
  for (int i = 0; i < THREADS; i++) EXPECT_EQ(thrd_create(&w[i], waiter, NULL), thrd_success);
  EXPECT_EQ(mtx_lock(&m), thrd_success);
  while (ready < THREADS) EXPECT_EQ(cnd_wait(&ready_c, &m), thrd_success);
  go = 1;
  EXPECT_EQ(cnd_broadcast(&c), thrd_success);
  EXPECT_EQ(mtx_unlock(&m), thrd_success);
  for (int i = 0; i < THREADS; i++) {
    int res = 0;
    EXPECT_EQ(thrd_join(w[i], &res), thrd_success);
    EXPECT_EQ(res, 7);
  }
  EXPECT_EQ(woken, THREADS);

  /* cnd_timedwait times out on virtual TIME_UTC. */
  EXPECT_EQ(mtx_lock(&m), thrd_success);
  struct timespec deadline;
  EXPECT_EQ(timespec_get(&deadline, TIME_UTC), TIME_UTC);
  deadline = ts_add_ms(deadline, 1500);
  EXPECT_EQ(cnd_timedwait(&c, &m, &deadline), thrd_timedout);
  EXPECT(ts_ge(ts_now(CLOCK_REALTIME), deadline));
  EXPECT_EQ(mtx_trylock(&m), thrd_busy); /* held again after the timeout */
  EXPECT_EQ(mtx_unlock(&m), thrd_success);

  /* call_once. */
  for (int i = 0; i < THREADS; i++) EXPECT_EQ(thrd_create(&w[i], once_caller, NULL), thrd_success);
  for (int i = 0; i < THREADS; i++) EXPECT_EQ(thrd_join(w[i], NULL), thrd_success);
  call_once(&flag, once_routine);
  EXPECT_EQ(once_runs, 1);

  cnd_destroy(&c);
  cnd_destroy(&ready_c);
  mtx_destroy(&m);
  return test_finish("c11");
}
