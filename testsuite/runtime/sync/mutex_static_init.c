/* Static initializers of every type work with no init call, and so does a
 * zero-filled mutex (PTHREAD_MUTEX_INITIALIZER is all zeros); destroy then
 * init makes a destroyed mutex usable again. */
#include "sync_test.h"

static pthread_mutex_t normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t adaptive = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;

static void *take_and_release(void *arg) {
  pthread_mutex_t *m = arg;
  EXPECT_EQ(pthread_mutex_lock(m), 0);
  EXPECT_EQ(pthread_mutex_unlock(m), 0);
  return NULL;
}

static void *try_busy(void *arg) {
  EXPECT_EQ(pthread_mutex_trylock(arg), EBUSY);
  return NULL;
}

/* Held by main, a mutex is busy for others; released, they get it. */
static void exclusive(pthread_mutex_t *m) {
  EXPECT_EQ(pthread_mutex_lock(m), 0);
  join(spawn(try_busy, m));
  EXPECT_EQ(pthread_mutex_unlock(m), 0);
  join(spawn(take_and_release, m));
}

int main(void) {
  exclusive(&normal);
  exclusive(&recursive);
  exclusive(&errorcheck);
  exclusive(&adaptive);

  /* The kinds came from the initializers. */
  EXPECT_EQ(pthread_mutex_lock(&recursive), 0);
  EXPECT_EQ(pthread_mutex_lock(&recursive), 0);
  EXPECT_EQ(pthread_mutex_unlock(&recursive), 0);
  EXPECT_EQ(pthread_mutex_unlock(&recursive), 0);
  EXPECT_EQ(pthread_mutex_unlock(&recursive), EPERM);
  EXPECT_EQ(pthread_mutex_lock(&errorcheck), 0);
  EXPECT_EQ(pthread_mutex_lock(&errorcheck), EDEADLK);
  EXPECT_EQ(pthread_mutex_unlock(&errorcheck), 0);
  EXPECT_EQ(pthread_mutex_unlock(&errorcheck), EPERM);
  EXPECT_EQ(pthread_mutex_trylock(&normal), 0);
  EXPECT_EQ(pthread_mutex_trylock(&normal), EBUSY); /* a normal mutex does not count */
  EXPECT_EQ(pthread_mutex_unlock(&normal), 0);

  pthread_mutex_t *zeroed = calloc(1, sizeof *zeroed);
  REQUIRE_EQ(zeroed != NULL, 1);
  exclusive(zeroed);
  free(zeroed);

  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  EXPECT_EQ(pthread_mutex_destroy(&m), 0);
  EXPECT_EQ(pthread_mutex_init(&m, NULL), 0);
  exclusive(&m);
  EXPECT_EQ(pthread_mutex_destroy(&m), 0);
  return test_finish("mutex_static_init");
}
