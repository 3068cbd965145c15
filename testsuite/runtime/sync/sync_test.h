/* What the sync tests share: checks that print what failed and make the
 * program exit 1, and virtual-time helpers.
 *
 * Each test prints one deterministic line ("PASS <name>") on success, so
 * that replay can compare stdout between runs of one seed.
 */
#ifndef DETSIM_SYNC_TEST_H
#define DETSIM_SYNC_TEST_H

/* The _NP initializers, clockwait and friends are GNU extensions. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int test_failures;

#define EXPECT_EQ(a, b) \
  do { \
    long long expect_a_ = (long long)(a), expect_b_ = (long long)(b); \
    if (expect_a_ != expect_b_) { \
      fprintf(stderr, "%s:%d: FAIL: %s == %s: %lld != %lld\n", __FILE__, __LINE__, #a, #b, \
              expect_a_, expect_b_); \
      test_failures++; \
    } \
  } while (0)

#define EXPECT(cond) \
  do { \
    if (!(cond)) { \
      fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); \
      test_failures++; \
    } \
  } while (0)

/* A check whose failure makes the rest meaningless. */
#define REQUIRE_EQ(a, b) \
  do { \
    long long expect_a_ = (long long)(a), expect_b_ = (long long)(b); \
    if (expect_a_ != expect_b_) { \
      fprintf(stderr, "%s:%d: FATAL: %s == %s: %lld != %lld\n", __FILE__, __LINE__, #a, #b, \
              expect_a_, expect_b_); \
      exit(1); \
    } \
  } while (0)

static inline int test_finish(const char *name) {
  if (test_failures != 0) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
    return 1;
  }
  printf("PASS %s\n", name);
  return 0;
}

static inline struct timespec ts_now(clockid_t clock) {
  struct timespec ts;
  REQUIRE_EQ(clock_gettime(clock, &ts), 0);
  return ts;
}

static inline struct timespec ts_add_ms(struct timespec ts, long ms) {
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  return ts;
}

/* a >= b */
static inline int ts_ge(struct timespec a, struct timespec b) {
  return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec >= b.tv_nsec);
}

static inline void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  REQUIRE_EQ(nanosleep(&ts, NULL), 0);
}

static inline pthread_t spawn(void *(*fn)(void *), void *arg) {
  pthread_t t;
  REQUIRE_EQ(pthread_create(&t, NULL, fn, arg), 0);
  return t;
}

static inline void *join(pthread_t t) {
  void *ret = NULL;
  REQUIRE_EQ(pthread_join(t, &ret), 0);
  return ret;
}

#endif
