/* Barriers: over ROUNDS rounds of THREADS threads, exactly one wait per
 * round returns PTHREAD_BARRIER_SERIAL_THREAD and the others 0, and nobody
 * leaves a round before everyone arrived in it; a count of 0 is EINVAL, a
 * barrier of 1 always returns SERIAL; the last thread out may destroy it.
 * It prints which thread was the serial one in each round (seeds differ). */
#include "sync_test.h"

#define THREADS 5
#define ROUNDS 8

static pthread_barrier_t b;
static int serial[ROUNDS];
static int arrived[ROUNDS];
static long serial_thread[ROUNDS];

static void *worker(void *arg) {
  long id = (long)arg;
  for (int r = 0; r < ROUNDS; r++) {
    arrived[r]++;
    int rc = pthread_barrier_wait(&b);
    EXPECT(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
    if (rc == PTHREAD_BARRIER_SERIAL_THREAD) {
      serial[r]++;
      serial_thread[r] = id;
    }
    EXPECT_EQ(arrived[r], THREADS); /* everyone arrived before anyone left */
  }
  return NULL;
}

static pthread_barrier_t last_out;
static void *destroy_after(void *arg) {
  (void)arg;
  if (pthread_barrier_wait(&last_out) == PTHREAD_BARRIER_SERIAL_THREAD)
    EXPECT_EQ(pthread_barrier_destroy(&last_out), 0); /* waits for the others to leave */
  return NULL;
}

int main(void) {
  pthread_barrier_t zero;
  EXPECT_EQ(pthread_barrier_init(&zero, NULL, 0), EINVAL);

  EXPECT_EQ(pthread_barrier_init(&b, NULL, THREADS), 0);
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) t[i] = spawn(worker, (void *)i);
  for (int i = 0; i < THREADS; i++) join(t[i]);
  for (int r = 0; r < ROUNDS; r++) EXPECT_EQ(serial[r], 1);
  /* Who arrives last is the schedule's choice: it differs between seeds. */
  printf("serial threads:");
  for (int r = 0; r < ROUNDS; r++) printf(" %ld", serial_thread[r]);
  printf("\n");
  EXPECT_EQ(pthread_barrier_destroy(&b), 0);

  pthread_barrier_t one;
  EXPECT_EQ(pthread_barrier_init(&one, NULL, 1), 0);
  for (int i = 0; i < 3; i++) EXPECT_EQ(pthread_barrier_wait(&one), PTHREAD_BARRIER_SERIAL_THREAD);
  EXPECT_EQ(pthread_barrier_destroy(&one), 0);

  EXPECT_EQ(pthread_barrier_init(&last_out, NULL, THREADS), 0);
  for (int i = 0; i < THREADS; i++) t[i] = spawn(destroy_after, NULL);
  for (int i = 0; i < THREADS; i++) join(t[i]);
  return test_finish("barrier");
}
