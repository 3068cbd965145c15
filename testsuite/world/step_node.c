/* A world test node for clock steps: it waits, ROUNDS times, until a time
 * on its CLOCK_REALTIME PERIOD_MS ahead, in four ways in turn, and prints
 * each wait, one line each:
 *
 *   step_node ROUNDS PERIOD_MS
 *
 *   wait K kind=sleep|cond|timerfd|ptimer|cancel armed=M0 target=T rt=R mono=M1 canceled=C
 *
 * armed and mono are CLOCK_MONOTONIC when the wait began and ended, target
 * the CLOCK_REALTIME time waited for, rt the clock when it ended.  sleep is
 * clock_nanosleep(TIMER_ABSTIME), cond pthread_cond_timedwait (on
 * CLOCK_REALTIME, its default), timerfd a one-shot TFD_TIMER_ABSTIME
 * timerfd, ptimer a one-shot TIMER_ABSTIME POSIX timer taken by
 * sigwaitinfo, cancel a timerfd as timerfd but with TFD_TIMER_CANCEL_ON_SET
 * too: its reads that failed with ECANCELED are counted in C (and it is
 * read again).  A step of the clock (a `step` fault) while a wait runs must
 * move its end, and cancel a `cancel` wait: world_test.py step checks each
 * against the steps. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000ll

static int64_t read_ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static struct timespec ts_of(int64_t ns) {
  struct timespec ts = { (time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S) };
  return ts;
}

static void fail(const char *what) {
  perror(what);
  exit(2);
}

static void until_sleep(struct timespec t) {
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &t, NULL) != 0) {}
}

static void until_cond(struct timespec t) {
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
  pthread_mutex_lock(&mu);
  while (pthread_cond_timedwait(&cv, &mu, &t) == 0) {} /* nobody signals it */
  pthread_mutex_unlock(&mu);
}

static int canceled;

static void until_timerfd_flags(struct timespec t, int flags) {
  int fd = timerfd_create(CLOCK_REALTIME, 0);
  struct itimerspec v = { .it_value = t };
  if (fd < 0 || timerfd_settime(fd, TFD_TIMER_ABSTIME | flags, &v, NULL) != 0) fail("step_node: timerfd");
  uint64_t n;
  ssize_t r;
  while ((r = read(fd, &n, sizeof n)) < 0 && errno == ECANCELED) canceled++;
  if (r != sizeof n || n != 1) fail("step_node: timerfd read");
  close(fd);
}

static void until_timerfd(struct timespec t) { until_timerfd_flags(t, 0); }
static void until_cancel(struct timespec t) { until_timerfd_flags(t, TFD_TIMER_CANCEL_ON_SET); }

static void until_ptimer(struct timespec t) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGRTMIN);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGRTMIN;
  timer_t id;
  struct itimerspec v = { .it_value = t };
  if (timer_create(CLOCK_REALTIME, &sev, &id) != 0 || timer_settime(id, TIMER_ABSTIME, &v, NULL) != 0)
    fail("step_node: timer");
  siginfo_t si;
  if (sigwaitinfo(&set, &si) != SIGRTMIN || si.si_code != SI_TIMER) fail("step_node: sigwaitinfo");
  timer_delete(id);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: step_node ROUNDS PERIOD_MS\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  int rounds = atoi(argv[1]);
  int64_t period = atoll(argv[2]) * 1000000ll;
  static const char *const kinds[] = { "sleep", "cond", "timerfd", "ptimer", "cancel" };
  static void (*const waits[])(struct timespec) = { until_sleep, until_cond, until_timerfd, until_ptimer, until_cancel };
  for (int k = 0; k < rounds; k++) {
    int64_t armed = read_ns(CLOCK_MONOTONIC);
    int64_t target = read_ns(CLOCK_REALTIME) + period;
    canceled = 0;
    waits[k % 5](ts_of(target));
    int64_t rt = read_ns(CLOCK_REALTIME), mono = read_ns(CLOCK_MONOTONIC);
    printf("wait %d kind=%s armed=%lld target=%lld rt=%lld mono=%lld canceled=%d\n", k, kinds[k % 5],
           (long long)armed, (long long)target, (long long)rt, (long long)mono, canceled);
    if (rt < target) {
      fprintf(stderr, "step_node: wait %d (%s) ended before its time\n", k, kinds[k % 5]);
      return 3;
    }
  }
  return 0;
}
