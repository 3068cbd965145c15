/* trylock: EBUSY while another thread holds the mutex, 0 once it is free;
 * trylock never blocks (the holder waits for the trier before it unlocks). */
#include "sync_test.h"

#define THREADS 4

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tried_cond = PTHREAD_COND_INITIALIZER;
static int tried;

static void *trier(void *arg) {
  (void)arg;
  EXPECT_EQ(pthread_mutex_trylock(&m), EBUSY);
  pthread_mutex_lock(&gate);
  tried++;
  pthread_cond_signal(&tried_cond);
  pthread_mutex_unlock(&gate);
  return NULL;
}

static void *winner(void *arg) {
  int *got = arg;
  if (pthread_mutex_trylock(&m) == 0) {
    (*got)++;
    sleep_ms(1); /* hold it across a switch */
    EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  }
  return NULL;
}

int main(void) {
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) t[i] = spawn(trier, NULL);
  pthread_mutex_lock(&gate);
  while (tried < THREADS) pthread_cond_wait(&tried_cond, &gate);
  pthread_mutex_unlock(&gate);
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  for (int i = 0; i < THREADS; i++) join(t[i]);

  /* Free: trylock succeeds. Concurrent triers: at least one wins, and they
   * never hold it together (the unlock by a non-holder would show). */
  EXPECT_EQ(pthread_mutex_trylock(&m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  int got = 0;
  for (int i = 0; i < THREADS; i++) t[i] = spawn(winner, &got);
  for (int i = 0; i < THREADS; i++) join(t[i]);
  EXPECT(got >= 1 && got <= THREADS);
  return test_finish("mutex_trylock");
}
