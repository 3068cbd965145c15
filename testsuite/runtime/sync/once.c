/* pthread_once: THREADS threads call it at once; the routine runs exactly
 * once, takes a while (sleeps, so others arrive meanwhile), and every caller
 * returns only after it finished. */
#include "sync_test.h"

#define THREADS 8

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int runs, done;

static void init_routine(void) {
  runs++;
  sleep_ms(10);
  done = 1;
}

static void *caller(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_once(&once, init_routine), 0);
  EXPECT_EQ(done, 1);
  EXPECT_EQ(runs, 1);
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) t[i] = spawn(caller, NULL);
  for (int i = 0; i < THREADS; i++) join(t[i]);
  EXPECT_EQ(pthread_once(&once, init_routine), 0);
  EXPECT_EQ(runs, 1);
  return test_finish("once");
}
