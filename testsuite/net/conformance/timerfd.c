/* Rule: timerfds as Linux: a read returns the expirations since the last
 * one (blocking while there are none, EAGAIN when non-blocking); periodic
 * timers count every period; TFD_TIMER_ABSTIME on the timer's clock;
 * gettime reports the time left and the interval; a zero value disarms and
 * settime returns the old value; readiness for poll, select and epoll
 * (edge-triggered: once per expiration until the timer is read or moved
 * on); Linux's EINVAL cases.
 *
 * Natively the timers run on real time, so the program prints only what a
 * loaded machine cannot change: counts at least N, times at most their
 * bound, orderings.  Everything lasts tens of milliseconds. */
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/timerfd.h>
#include <time.h>

#include "conf.h"

#define MS 1000000L

static long long ns_of(const struct timespec *ts) { return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec; }

static long long clock_ns(clockid_t id) {
  struct timespec ts;
  MUST(clock_gettime(id, &ts) == 0);
  return ns_of(&ts);
}

static struct itimerspec spec(long value_ns, long interval_ns) {
  struct itimerspec s = {
    .it_interval = { interval_ns / 1000000000L, interval_ns % 1000000000L },
    .it_value = { value_ns / 1000000000L, value_ns % 1000000000L },
  };
  return s;
}

static int arm(int fd, long value_ns, long interval_ns) {
  struct itimerspec s = spec(value_ns, interval_ns);
  return timerfd_settime(fd, 0, &s, NULL);
}

/* The expirations a read returns, or -1 with errno. */
static long long expirations(int fd) {
  uint64_t n = 0;
  ssize_t r = read(fd, &n, sizeof n);
  if (r < 0) return -1;
  MUST(r == sizeof n);
  return (long long)n;
}

static void show_spec(const char *label, const struct itimerspec *s) {
  printf("%s value=%ld.%09ld interval=%ld.%09ld\n", label, (long)s->it_value.tv_sec, s->it_value.tv_nsec,
         (long)s->it_interval.tv_sec, s->it_interval.tv_nsec);
  fflush(stdout);
}

static void show_fact(const char *label, int holds) {
  printf("%s=%d\n", label, holds);
  fflush(stdout);
}

static void show_epoll(const char *label, int n, const struct epoll_event *ev) {
  printf("%s=%d", label, n);
  for (int i = 0; i < n; i++) printf(" [data=%u%s]", ev[i].data.u32, (ev[i].events & EPOLLIN) ? " IN" : "");
  printf("\n");
  fflush(stdout);
}

static void one_shot(void) {
  int t = timerfd_create(CLOCK_MONOTONIC, 0);
  show_fact("create", t >= 0);
  struct itimerspec g;
  SHOW("gettime_fresh", timerfd_gettime(t, &g));
  show_spec("fresh", &g);
  /* A long time, so that even a stalled machine sees most of it left. */
  SHOW("settime_100s", arm(t, 100000 * MS, 0));
  SHOW("gettime_armed", timerfd_gettime(t, &g));
  show_fact("armed_left_in_50s_100s", ns_of(&g.it_value) > 50000 * MS && ns_of(&g.it_value) <= 100000 * MS);
  show_fact("armed_interval_zero", ns_of(&g.it_interval) == 0);
  long long t0 = clock_ns(CLOCK_MONOTONIC);
  SHOW("settime_20ms", arm(t, 20 * MS, 0));
  printf("expirations=%lld\n", expirations(t));
  show_fact("not_early", clock_ns(CLOCK_MONOTONIC) - t0 >= 20 * MS);
  SHOW("gettime_spent", timerfd_gettime(t, &g));
  show_spec("spent", &g);
  int d = dup(t);
  SHOW("close_original", close(t));
  SHOW("settime_dup", arm(d, 10 * MS, 0));
  printf("dup_expirations=%lld\n", expirations(d));
  SHOW("getfl_accmode", fcntl(d, F_GETFL) & O_ACCMODE);
  close(d);
}

static void periodic(void) {
  int t = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  SHOW("getfl_nonblock", (fcntl(t, F_GETFL) & O_NONBLOCK) != 0);
  SHOW("getfd_cloexec", fcntl(t, F_GETFD));
  SHOW("read_unarmed", expirations(t));
  SHOW("settime_periodic", arm(t, 10 * MS, 10 * MS));
  usleep(55000);
  long long n = expirations(t);
  show_fact("periodic_at_least_5", n >= 5);
  struct itimerspec g;
  SHOW("gettime_periodic", timerfd_gettime(t, &g));
  show_fact("left_le_interval", ns_of(&g.it_value) <= 10 * MS);
  printf("interval=%ld.%09ld\n", (long)g.it_interval.tv_sec, g.it_interval.tv_nsec);
  struct pollfd p = { t, POLLIN, 0 };
  SHOW("poll_next_period", poll(&p, 1, 2000));
  show_revents("revents", p.revents);
  show_fact("next_period_at_least_1", expirations(t) >= 1);

  /* A zero value disarms; the old value comes back. */
  struct itimerspec old, off = spec(0, 0);
  SHOW("settime_disarm", timerfd_settime(t, 0, &off, &old));
  show_fact("old_left_le_interval", ns_of(&old.it_value) <= 10 * MS);
  printf("old_interval=%ld.%09ld\n", (long)old.it_interval.tv_sec, old.it_interval.tv_nsec);
  SHOW("gettime_disarmed", timerfd_gettime(t, &g));
  show_spec("disarmed", &g);
  SHOW("poll_disarmed", poll(&p, 1, 50));
  SHOW("read_disarmed", expirations(t));
  /* Linux keeps the interval of a disarmed timer. */
  struct itimerspec only_interval = spec(0, 7 * MS);
  SHOW("settime_interval_only", timerfd_settime(t, 0, &only_interval, NULL));
  SHOW("gettime_interval_only", timerfd_gettime(t, &g));
  show_spec("interval_only", &g);
  close(t);
}

static void absolute(void) {
  int t = timerfd_create(CLOCK_REALTIME, 0);
  long long target = clock_ns(CLOCK_REALTIME) + 20 * MS;
  struct itimerspec s = spec(0, 0);
  s.it_value.tv_sec = (time_t)(target / 1000000000LL);
  s.it_value.tv_nsec = (long)(target % 1000000000LL);
  SHOW("settime_abs_realtime", timerfd_settime(t, TFD_TIMER_ABSTIME, &s, NULL));
  printf("abs_expirations=%lld\n", expirations(t));
  show_fact("abs_not_early", clock_ns(CLOCK_REALTIME) >= target);
  SHOW("settime_cancel_on_set", timerfd_settime(t, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &s, NULL));
  printf("cancel_on_set_expirations=%lld\n", expirations(t));
  close(t);

  /* A time already past expires at once; a periodic timer counts every
   * period since then. */
  t = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  long long past = clock_ns(CLOCK_MONOTONIC) - 95 * MS;
  s = spec(0, 0);
  s.it_value.tv_sec = (time_t)(past / 1000000000LL);
  s.it_value.tv_nsec = (long)(past % 1000000000LL);
  SHOW("settime_abs_past", timerfd_settime(t, TFD_TIMER_ABSTIME, &s, NULL));
  printf("past_oneshot_expirations=%lld\n", expirations(t));
  s.it_interval.tv_nsec = 10 * MS;
  SHOW("settime_abs_past_periodic", timerfd_settime(t, TFD_TIMER_ABSTIME, &s, NULL));
  show_fact("past_periodic_at_least_10", expirations(t) >= 10);
  close(t);
}

static void readiness(void) {
  int t = timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK);
  int ep = epoll_create1(0);
  struct epoll_event ev = { EPOLLIN, { .u32 = 1 } }, out[2];
  SHOW("epoll_add", epoll_ctl(ep, EPOLL_CTL_ADD, t, &ev));
  show_epoll("lt_unarmed", epoll_wait(ep, out, 2, 0), out);
  arm(t, 10 * MS, 0);
  show_epoll("lt_expired", epoll_wait(ep, out, 2, 2000), out);
  show_epoll("lt_unread", epoll_wait(ep, out, 2, 0), out);
  printf("lt_expirations=%lld\n", expirations(t));
  show_epoll("lt_read", epoll_wait(ep, out, 2, 0), out);

  /* Edge-triggered: a periodic timer that expired unread raises no new
   * edge (Linux's timer stops until it is read or moved on). */
  ev.events = EPOLLIN | EPOLLET;
  ev.data.u32 = 2;
  SHOW("epoll_mod_et", epoll_ctl(ep, EPOLL_CTL_MOD, t, &ev));
  arm(t, 10 * MS, 10 * MS);
  show_epoll("et_first", epoll_wait(ep, out, 2, 2000), out);
  usleep(25000);
  show_epoll("et_unread", epoll_wait(ep, out, 2, 0), out);
  /* timerfd_gettime moves the timer on: its next expiration is an edge,
   * and the wait lasts until then. */
  struct itimerspec g;
  long long moved_on = clock_ns(CLOCK_BOOTTIME);
  SHOW("et_gettime", timerfd_gettime(t, &g));
  show_epoll("et_after_gettime", epoll_wait(ep, out, 2, 2000), out);
  show_fact("et_waited_for_next", clock_ns(CLOCK_BOOTTIME) - moved_on >= ns_of(&g.it_value));
  show_fact("et_expirations_at_least_4", expirations(t) >= 4);
  show_epoll("et_after_read", epoll_wait(ep, out, 2, 2000), out);

  /* Armed at a time already past: one edge, then none until a read. */
  struct itimerspec past = { .it_interval = { 0, 10 * MS } };
  MUST(clock_gettime(CLOCK_BOOTTIME, &past.it_value) == 0);
  past.it_value.tv_sec -= 1;
  SHOW("settime_past_et", timerfd_settime(t, TFD_TIMER_ABSTIME, &past, NULL));
  show_epoll("et_past", epoll_wait(ep, out, 2, 2000), out);
  show_epoll("et_past_no_new_edge", epoll_wait(ep, out, 2, 30), out);
  show_fact("et_past_expirations_at_least_100", expirations(t) >= 100);
  close(ep);

  arm(t, 10 * MS, 0);
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(t, &rd);
  struct timeval tv = { 2, 0 };
  SHOW("select", select(t + 1, &rd, NULL, NULL, &tv));
  SHOW("select_isset", FD_ISSET(t, &rd) != 0);
  close(t);
}

/* Whether this process may use the _ALARM clocks (CAP_WAKE_ALARM, bit 35
 * of CapEff): the simulation answers as for a process that may not, so
 * the line is printed only where the kernel would say the same. */
static int may_wake_alarm(void) {
  FILE *f = fopen("/proc/self/status", "r");
  if (f == NULL) return 1;
  char line[256];
  unsigned long long caps = ~0ull;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "CapEff: %llx", &caps) == 1) break;
  fclose(f);
  return (caps >> 35) & 1;
}

static void bad_arguments(void) {
  SHOW("create_bad_clock", timerfd_create(12345, 0));
  SHOW("create_cputime_clock", timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0));
  SHOW("create_bad_flags", timerfd_create(CLOCK_MONOTONIC, 1));
  if (!may_wake_alarm()) SHOW("create_alarm_clock", timerfd_create(CLOCK_BOOTTIME_ALARM, 0));
  int t = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  struct itimerspec s = spec(10 * MS, 0);
  SHOW("settime_bad_flags", timerfd_settime(t, 0x100, &s, NULL));
  s.it_value.tv_nsec = 1000000000L;
  SHOW("settime_nsec_too_big", timerfd_settime(t, 0, &s, NULL));
  s.it_value.tv_nsec = -1;
  SHOW("settime_nsec_negative", timerfd_settime(t, 0, &s, NULL));
  s = spec(10 * MS, 0);
  s.it_interval.tv_nsec = 1000000000L;
  SHOW("settime_bad_interval", timerfd_settime(t, 0, &s, NULL));
  s = spec(10 * MS, 0);
  s.it_value.tv_sec = -1;
  SHOW("settime_negative_sec", timerfd_settime(t, 0, &s, NULL));
  s = spec(10 * MS, 0);
  SHOW("settime_bad_fd", timerfd_settime(-1, 0, &s, NULL));
  uint32_t small;
  SHOW("read_4_bytes", read(t, &small, sizeof small));
  uint64_t v = 1;
  SHOW("write", write(t, &v, sizeof v));
  SHOW("send", send(t, &v, sizeof v, 0));
  int p[2];
  MUST(pipe(p) == 0);
  s = spec(10 * MS, 0);
  SHOW("settime_on_pipe", timerfd_settime(p[0], 0, &s, NULL));
  int e = eventfd(0, 0);
  struct itimerspec g;
  SHOW("gettime_on_eventfd", timerfd_gettime(e, &g));
  close(e);
  close(p[0]);
  close(p[1]);
  close(t);
}

int main(void) {
  one_shot();
  periodic();
  absolute();
  readiness();
  bad_arguments();
  return 0;
}
