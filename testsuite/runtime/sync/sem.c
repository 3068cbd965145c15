/* Semaphores: PRODUCERS producers and CONSUMERS consumers pass exactly
 * PRODUCERS*ITEMS items through a SLOTS-slot ring guarded by two counting
 * semaphores and a binary one (every item once; the sum is exact); trywait
 * is EAGAIN at zero; timedwait ETIMEDOUT after the deadline and EINVAL for
 * a bad timespec; getvalue; init above SEM_VALUE_MAX EINVAL; a post at
 * SEM_VALUE_MAX EOVERFLOW. */
#include "sync_test.h"

#include <limits.h>
#include <semaphore.h>

#define PRODUCERS 3
#define CONSUMERS 2
#define ITEMS 40
#define SLOTS 4

static sem_t empty, full, guard;
static int ring[SLOTS];
static int head, tail;
static long consumed_sum;
static int consumed;

static void *producer(void *arg) {
  long id = (long)arg;
  for (int i = 1; i <= ITEMS; i++) {
    REQUIRE_EQ(sem_wait(&empty), 0);
    REQUIRE_EQ(sem_wait(&guard), 0);
    ring[head] = (int)(id * 1000 + i);
    head = (head + 1) % SLOTS;
    REQUIRE_EQ(sem_post(&guard), 0);
    REQUIRE_EQ(sem_post(&full), 0);
  }
  return NULL;
}

static void *consumer(void *arg) {
  long n = (long)arg;
  for (long i = 0; i < n; i++) {
    REQUIRE_EQ(sem_wait(&full), 0);
    REQUIRE_EQ(sem_wait(&guard), 0);
    consumed_sum += ring[tail];
    consumed++;
    tail = (tail + 1) % SLOTS;
    REQUIRE_EQ(sem_post(&guard), 0);
    REQUIRE_EQ(sem_post(&empty), 0);
  }
  return NULL;
}

int main(void) {
  REQUIRE_EQ(sem_init(&empty, 0, SLOTS), 0);
  REQUIRE_EQ(sem_init(&full, 0, 0), 0);
  REQUIRE_EQ(sem_init(&guard, 0, 1), 0);
  pthread_t p[PRODUCERS], c[CONSUMERS];
  int total = PRODUCERS * ITEMS;
  for (long i = 0; i < CONSUMERS; i++)
    c[i] = spawn(consumer, (void *)(long)(total / CONSUMERS + (i < total % CONSUMERS)));
  for (long i = 0; i < PRODUCERS; i++) p[i] = spawn(producer, (void *)(i + 1));
  for (int i = 0; i < PRODUCERS; i++) join(p[i]);
  for (int i = 0; i < CONSUMERS; i++) join(c[i]);
  long expected = 0;
  for (long id = 1; id <= PRODUCERS; id++)
    for (int i = 1; i <= ITEMS; i++) expected += id * 1000 + i;
  EXPECT_EQ(consumed, total);
  EXPECT_EQ(consumed_sum, expected);
  int v = -1;
  EXPECT_EQ(sem_getvalue(&empty, &v), 0);
  EXPECT_EQ(v, SLOTS);
  EXPECT_EQ(sem_getvalue(&full, &v), 0);
  EXPECT_EQ(v, 0);

  /* At zero. */
  errno = 0;
  EXPECT_EQ(sem_trywait(&full), -1);
  EXPECT_EQ(errno, EAGAIN);
  struct timespec deadline = ts_add_ms(ts_now(CLOCK_REALTIME), 300);
  errno = 0;
  EXPECT_EQ(sem_timedwait(&full, &deadline), -1);
  EXPECT_EQ(errno, ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_REALTIME), deadline));
  deadline = ts_add_ms(ts_now(CLOCK_MONOTONIC), 300);
  errno = 0;
  EXPECT_EQ(sem_clockwait(&full, CLOCK_MONOTONIC, &deadline), -1);
  EXPECT_EQ(errno, ETIMEDOUT);
  EXPECT(ts_ge(ts_now(CLOCK_MONOTONIC), deadline));
  struct timespec bad = deadline;
  bad.tv_nsec = 1000000000L;
  errno = 0;
  EXPECT_EQ(sem_timedwait(&full, &bad), -1);
  EXPECT_EQ(errno, EINVAL);
  /* Checked first, as glibc: even when the semaphore is available. */
  errno = 0;
  EXPECT_EQ(sem_timedwait(&empty, &bad), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(sem_getvalue(&empty, &v), 0);
  EXPECT_EQ(v, SLOTS);

  /* Limits. */
  sem_t s;
  errno = 0;
  EXPECT_EQ(sem_init(&s, 0, (unsigned)SEM_VALUE_MAX + 1u), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(sem_init(&s, 0, SEM_VALUE_MAX), 0);
  errno = 0;
  EXPECT_EQ(sem_post(&s), -1);
  EXPECT_EQ(errno, EOVERFLOW);
  EXPECT_EQ(sem_trywait(&s), 0);
  EXPECT_EQ(sem_getvalue(&s, &v), 0);
  EXPECT_EQ(v, SEM_VALUE_MAX - 1);
  EXPECT_EQ(sem_destroy(&s), 0);

  EXPECT_EQ(sem_destroy(&empty), 0);
  EXPECT_EQ(sem_destroy(&full), 0);
  EXPECT_EQ(sem_destroy(&guard), 0);
  return test_finish("sem");
}
