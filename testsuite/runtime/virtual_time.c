/* Hours of virtual time in well under a second of real time: threads sleep
 * in every way (sleep, usleep, nanosleep, clock_nanosleep relative and
 * absolute, cond timedwait timing out), while every clock is checked to
 * agree with the others and CLOCK_MONOTONIC never to go back. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define THREADS 6
#define HOUR_NS (3600ll * 1000000000ll)

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static long long ns(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) {
    printf("clock_gettime(%d) failed\n", (int)id);
    exit(1);
  }
  return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void fail(const char *what, long long a, long long b) {
  printf("FAIL: %s (%lld vs %lld)\n", what, a, b);
  exit(1);
}

static _Thread_local long long last_mono;

static void check_clocks(void) {
  long long mono = ns(CLOCK_MONOTONIC);
  if (mono < last_mono) fail("CLOCK_MONOTONIC went back", mono, last_mono);
  last_mono = mono;
  long long real1 = ns(CLOCK_REALTIME), mono2 = ns(CLOCK_MONOTONIC), boot = ns(CLOCK_BOOTTIME),
            raw = ns(CLOCK_MONOTONIC_RAW);
  if (mono2 < mono) fail("CLOCK_MONOTONIC went back", mono2, mono);
  /* All clocks advance together: offsets between them stay fixed. */
  static long long real_minus_mono = -1;
  long long d = real1 - mono2;
  if (real_minus_mono == -1) real_minus_mono = d;
  if (llabs(d - real_minus_mono) > 1000000) fail("REALTIME-MONOTONIC drifted", d, real_minus_mono);
  if (llabs(boot - mono2) > 1000000) fail("BOOTTIME disagrees with MONOTONIC", boot, mono2);
  if (llabs(raw - mono2) > 1000000) fail("MONOTONIC_RAW disagrees with MONOTONIC", raw, mono2);
  struct timeval tv;
  gettimeofday(&tv, NULL);
  long long tod = tv.tv_sec * 1000000000ll + tv.tv_usec * 1000ll;
  if (llabs(tod - real1) > 1000000) fail("gettimeofday disagrees with CLOCK_REALTIME", tod, real1);
  time_t t = time(NULL);
  if (llabs((long long)t - real1 / 1000000000ll) > 1) fail("time() disagrees with CLOCK_REALTIME", t, real1);
}

static void *sleeper(void *arg) {
  long id = (long)arg;
  long long start = ns(CLOCK_MONOTONIC);
  for (int round = 0; round < 4; round++) {
    check_clocks();
    switch ((id + round) % 5) {
      case 0: sleep(900); break;                        /* 15 min */
      case 1: usleep(900u * 1000000u); break;
      case 2: { struct timespec ts = {900, 0}; nanosleep(&ts, NULL); break; }
      case 3: {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += 900;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        break;
      }
      case 4: {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 900;
        pthread_mutex_lock(&m);
        int r = pthread_cond_timedwait(&never, &m, &ts);
        pthread_mutex_unlock(&m);
        if (r != ETIMEDOUT) fail("cond_timedwait did not time out", r, ETIMEDOUT);
        break;
      }
    }
  }
  long long slept = ns(CLOCK_MONOTONIC) - start;
  if (slept < HOUR_NS) fail("a thread slept less than an hour", slept, HOUR_NS);
  if (slept > HOUR_NS + 1000000000ll) fail("a thread slept much more than an hour", slept, HOUR_NS);
  return NULL;
}

int main(void) {
  long long start = ns(CLOCK_MONOTONIC);
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, sleeper, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  long long total = ns(CLOCK_MONOTONIC) - start;
  /* The threads slept concurrently: an hour of virtual time in all. */
  if (total < HOUR_NS || total > HOUR_NS + 2000000000ll) fail("total virtual time", total, HOUR_NS);
  printf("slept %lld s of virtual time\n", total / 1000000000ll);
  return 0;
}
