/* Timerfds on virtual time: waits of 30 s (a blocking read, poll, epoll,
 * an absolute CLOCK_REALTIME time) end after exactly their virtual time
 * and cost no real time; a timer armed or moved by another thread while a
 * reader is blocked wakes the reader at its new time; a 1 ms periodic timer
 * counts exactly 30000 expirations in 30 virtual seconds.  The _ALARM
 * clocks are refused with EPERM.  Every fact printed is read from the
 * virtual clocks. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define S 1000000000LL

static long long clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (long long)ts.tv_sec * S + ts.tv_nsec;
}

static int arm(int fd, long long value_ns, long long interval_ns) {
  struct itimerspec s = {
    .it_interval = { (time_t)(interval_ns / S), (long)(interval_ns % S) },
    .it_value = { (time_t)(value_ns / S), (long)(value_ns % S) },
  };
  return timerfd_settime(fd, 0, &s, NULL);
}

static long long expirations(int fd) {
  uint64_t n = 0;
  return read(fd, &n, sizeof n) == sizeof n ? (long long)n : -1;
}

/* 1 when `from` to now on CLOCK_MONOTONIC is `want` s, within a second. */
static int waited(long long from, long long want) {
  long long d = clock_ns(CLOCK_MONOTONIC) - from;
  return d >= want * S && d < (want + 1) * S;
}

static int blocked_fd;
static long long reader_got, reader_start;
static int reader_waited_30s;

static void *reader(void *arg) {
  (void)arg;
  reader_got = expirations(blocked_fd);
  reader_waited_30s = waited(reader_start, 30);
  return NULL;
}

/* A reader blocks on a timer that is disarmed (or armed for 60 s); this
 * thread then arms it for 30 s: the reader wakes 30 s later. */
static void armed_while_blocked(const char *label, long long first_ns) {
  blocked_fd = timerfd_create(CLOCK_MONOTONIC, 0);
  if (first_ns) arm(blocked_fd, first_ns, 0);
  reader_start = clock_ns(CLOCK_MONOTONIC);
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  usleep(1000); /* the reader blocks first */
  arm(blocked_fd, 30 * S - 1000000, 0);
  pthread_join(t, NULL);
  printf("%s expirations=%lld waited_30s=%d\n", label, reader_got, reader_waited_30s);
  close(blocked_fd);
}

int main(void) {
  int t = timerfd_create(CLOCK_MONOTONIC, 0);
  long long t0 = clock_ns(CLOCK_MONOTONIC);
  arm(t, 30 * S, 0);
  long long n = expirations(t);
  printf("read expirations=%lld waited_30s=%d\n", n, waited(t0, 30));

  struct pollfd p = { t, POLLIN, 0 };
  t0 = clock_ns(CLOCK_MONOTONIC);
  arm(t, 30 * S, 0);
  int r = poll(&p, 1, -1);
  printf("poll=%d expirations=%lld waited_30s=%d\n", r, expirations(t), waited(t0, 30));

  int ep = epoll_create1(0);
  struct epoll_event ev = { EPOLLIN | EPOLLET, { .u32 = 7 } }, out;
  epoll_ctl(ep, EPOLL_CTL_ADD, t, &ev);
  t0 = clock_ns(CLOCK_MONOTONIC);
  arm(t, 30 * S, 30 * S);
  long long total = 0;
  for (int i = 0; i < 3; i++) {
    r = epoll_wait(ep, &out, 1, -1);
    total += expirations(t);
  }
  printf("epoll_et waits=3 expirations=%lld waited_90s=%d\n", total, waited(t0, 90));
  close(ep);

  int rt = timerfd_create(CLOCK_REALTIME, 0);
  long long target = clock_ns(CLOCK_REALTIME) + 30 * S;
  struct itimerspec abs = { .it_value = { (time_t)(target / S), (long)(target % S) } };
  timerfd_settime(rt, TFD_TIMER_ABSTIME, &abs, NULL);
  n = expirations(rt);
  long long late = clock_ns(CLOCK_REALTIME) - target;
  printf("abs_realtime expirations=%lld on_time=%d\n", n, late >= 0 && late < S);
  close(rt);

  arm(t, 1000000, 1000000);
  sleep(30);
  printf("periodic_1ms ticks_in_30s=%lld\n", expirations(t));
  close(t);

  armed_while_blocked("armed_while_blocked", 0);
  armed_while_blocked("moved_earlier_while_blocked", 60 * S);

  errno = 0;
  r = timerfd_create(CLOCK_REALTIME_ALARM, 0);
  printf("alarm=%d %s\n", r, strerrorname_np(errno));
  return 0;
}
