/* Timerfds on virtual time.
 *
 * A timerfd is the time of its next expiration, an interval, and a count of
 * expirations not yet read.  Expirations are lazy, as a socket's arrivals
 * are: the count at time `now` is what was counted so far plus the
 * expirations of `next` and its periods up to `now`.  So readiness is a
 * pure function of state and time, and a blocked reader (or poll, select,
 * epoll_wait) has the next expiration as its deadline: when nothing else
 * can run, virtual time jumps straight to it.
 *
 * Times are nanoseconds since the start of the run on the node's clocks
 * (time/time.h: virtual time itself, unless the node's clocks drift), so a
 * timer's periods are the node's and every clock measures relative times
 * alike; only a deadline handed to the scheduler becomes virtual time.  The
 * timer's clock only matters for TFD_TIMER_ABSTIME, which reads it through
 * clock.c, so an absolute time means what clock_gettime on that clock says.
 * A node's CLOCK_REALTIME may step (a `step` fault): a timer armed at an
 * absolute realtime time moves with it, and one armed with
 * TFD_TIMER_CANCEL_ON_SET as well is canceled: its next read fails with
 * ECANCELED (it is readable until then), as Linux's is.
 * Linux's rules kept: a periodic timer that expired unread is moved on by
 * timerfd_gettime and timerfd_settime (its expirations kept for the next
 * read, which is then a new edge for epoll); settime forgets unread
 * expirations; an absolute time in the past expires at once, with a
 * periodic timer's periods since that time counted.
 */
#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>

#include "core/core.h"
#include "time/time.h"
#include "net/net.h"
#include "world/world.h"

struct net_timerfd {
  clockid_t clock;
  uint64_t next;      /* the next expiration not yet counted (virtual ns),
                         DETSIM_NO_DEADLINE when disarmed */
  uint64_t interval;  /* ns between expirations, 0 for a one-shot timer */
  uint64_t ticks;     /* expirations counted before `next`, unread */
  bool stopped;       /* armed at an absolute time already past, and not
                         read since: Linux's timer stopped at that
                         expiration, so the periods after it count but
                         raise no new edge (as when next <= now) */
  bool rt_abs;        /* armed at an absolute CLOCK_REALTIME time: `next`
                         moves with the node's clock steps */
  bool cancel_on_set; /* rt_abs and TFD_TIMER_CANCEL_ON_SET ... */
  bool canceled;      /* ... and the clock stepped since: a read says so */
  uint32_t step_gen;  /* the last clock step applied to it */
};

#define NS_PER_S 1000000000ull

static bool alarm_clock(int clockid) {
  return clockid == CLOCK_REALTIME_ALARM || clockid == CLOCK_BOOTTIME_ALARM;
}

static bool timer_clock(int clockid) {
  return clockid == CLOCK_REALTIME || clockid == CLOCK_MONOTONIC || clockid == CLOCK_BOOTTIME ||
         alarm_clock(clockid);
}

int net_timerfd_create(int clockid, int flags) {
  if ((flags & ~(TFD_NONBLOCK | TFD_CLOEXEC)) || !timer_clock(clockid)) {
    errno = EINVAL;
    return -1;
  }
  if (alarm_clock(clockid)) {
    /* Linux asks for CAP_WAKE_ALARM; the simulation answers as it does to
     * an unprivileged process, whoever runs it, so runs agree everywhere. */
    net_unsupported("timerfd_create on an _ALARM clock", "EPERM, as for a process without CAP_WAKE_ALARM");
    errno = EPERM;
    return -1;
  }
  struct net_timerfd *t = detsim__net_calloc(1, sizeof *t);
  CHECK(t != NULL);
  t->clock = clockid;
  t->next = DETSIM_NO_DEADLINE;
  return net_fd_open(NET_TIMERFD, t, (flags & TFD_NONBLOCK) != 0, (flags & TFD_CLOEXEC) != 0, NULL);
}

void net_timerfd_release(struct net_file *f) { detsim__net_free(f->obj); }

/* ---- time arithmetic ---- */

/* `at` + `ns`: the node's time (max_sim_time_s, DETSIM_CLOCK_LOCAL_NS_MAX)
 * and timer values (DETSIM_NET_TIMERFD_NS_MAX) are each below 2^63, so the
 * sum never wraps. */
static uint64_t later(uint64_t at, uint64_t ns) {
  uint64_t sum;
  CHECK(!__builtin_add_overflow(at, ns, &sum));
  return sum;
}

/* Expirations of `next` and its periods up to `now`. */
static uint64_t due(const struct net_timerfd *t, uint64_t now) {
  if (t->next > now) return 0;
  if (t->interval == 0) return 1;
  return 1 + (now - t->next) / t->interval;
}

static uint64_t expirations(const struct net_timerfd *t, uint64_t now) { return t->ticks + due(t, now); }

/* Counts the expirations up to `now` into ticks, moving `next` past now. */
static void fold(struct net_timerfd *t, uint64_t now) {
  uint64_t n = due(t, now);
  if (n == 0) return;
  CHECK_LE(t->ticks, UINT64_MAX - n);
  t->ticks += n;
  t->next = t->interval == 0 ? DETSIM_NO_DEADLINE : later(t->next, n * t->interval);
  CHECK_LT(now, t->next);
}

/* Now on the node's clocks, and back: the virtual time at which they read
 * `node_ns` (for the scheduler's deadlines). */
static uint64_t node_now(void) { return detsim__clock_local_ns(detsim__now_ns()); }

static uint64_t virtual_at(uint64_t node_ns) {
  return node_ns == DETSIM_NO_DEADLINE ? DETSIM_NO_DEADLINE : detsim__clock_virtual_ns(node_ns);
}

/* Now on the timer's own clock, in ns (clock.c's mapping of clock ids). */
static uint64_t clock_now_ns(const struct net_timerfd *t) {
  struct timespec ts;
  CHECK_EQ(detsim__clock_read(t->clock, &ts), 0);
  uint64_t ns = (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
  CHECK_LE(ns, DETSIM_NET_TIMERFD_NS_MAX); /* every clock starts centuries before KTIME_MAX */
  return ns;
}

/* Sets `next` (and, for a time already past, ticks) from a new it_value. */
static void arm(struct net_timerfd *t, bool abstime, const struct timespec *value, uint64_t now) {
  t->next = DETSIM_NO_DEADLINE;
  if (value->tv_sec == 0 && value->tv_nsec == 0) return; /* disarms */
  uint64_t v = detsim__timespec_ns(value);
  uint64_t clock_now = clock_now_ns(t);
  if (!abstime) {
    /* Linux saturates the expiration on the timer's clock, not the value. */
    uint64_t room = DETSIM_NET_TIMERFD_NS_MAX - clock_now;
    t->next = later(now, v < room ? v : room);
    return;
  }
  if (v > clock_now) {
    t->next = later(now, v - clock_now);
    return;
  }
  /* Due already: it expires now, and a periodic timer counts its periods
   * since `v` (which may precede the run), as Linux does. */
  uint64_t late = clock_now - v;
  t->stopped = true;
  if (t->interval == 0) {
    t->ticks = 1;
    return;
  }
  t->ticks = 1 + late / t->interval;
  t->next = later(now, t->ticks * t->interval - late);
}

/* The time left and the interval, as timerfd_gettime reports them.  A
 * periodic timer that expired unread is moved on to its next expiration
 * first (Linux restarts it there, so the next expiration is a new edge). */
static struct itimerspec current(struct net_file *f, uint64_t now) {
  struct net_timerfd *t = f->obj;
  if (t->interval != 0 && (t->stopped || due(t, now) > 0)) {
    fold(t, now);
    t->stopped = false;
    f->changes++;
  }
  uint64_t left = t->next == DETSIM_NO_DEADLINE || t->next <= now ? 0 : t->next - now;
  struct itimerspec out = { .it_interval = detsim__ns_timespec(t->interval), .it_value = detsim__ns_timespec(left) };
  return out;
}

/* ---- the calls (0 or an errno) ---- */

int net_timerfd_settime(struct net_file *f, int flags, const struct itimerspec *value, struct itimerspec *old) {
  struct net_timerfd *t = f->obj;
  if (value == NULL) return EFAULT;
  if (flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) return EINVAL;
  if (!detsim__timespec_valid(&value->it_value) || !detsim__timespec_valid(&value->it_interval)) return EINVAL;
  uint64_t now = node_now();
  struct itimerspec was = current(f, now);
  t->ticks = 0;
  t->stopped = false;
  t->interval = detsim__timespec_ns(&value->it_interval);
  arm(t, (flags & TFD_TIMER_ABSTIME) != 0, &value->it_value, now);
  t->rt_abs = (flags & TFD_TIMER_ABSTIME) && detsim__clock_is_realtime(t->clock);
  t->cancel_on_set = t->rt_abs && (flags & TFD_TIMER_CANCEL_ON_SET);
  t->canceled = false;
  f->changes++;
  /* A reader or poller blocked on this timer re-checks at its expiration. */
  net_wake_node(f->node, virtual_at(t->next));
  if (old != NULL) *old = was;
  return 0;
}

/* A step of delta ns: the realtime time a timer waits for comes delta
 * sooner on the node's clocks (later for a step back).  Each timerfd once,
 * whatever descriptors share it. */
void net_timerfd_clock_stepped(int64_t delta) {
  static uint32_t gen;
  gen++;
  for (int fd = 0; fd < DETSIM_NET_FD_NUMBER_MAX; fd++) {
    struct net_file *f = net_fd_get(fd);
    if (f == NULL || f->kind != NET_TIMERFD) continue;
    struct net_timerfd *t = f->obj;
    if (t->step_gen == gen || !t->rt_abs || t->next == DETSIM_NO_DEADLINE) continue;
    t->step_gen = gen;
    if (delta > 0) t->next = t->next > (uint64_t)delta ? t->next - (uint64_t)delta : 0;
    else t->next = later(t->next, (uint64_t)-delta);
    if (t->cancel_on_set) t->canceled = true;
    f->changes++;
    net_wake_node(f->node, virtual_at(t->next));
  }
}

int net_timerfd_gettime(struct net_file *f, struct itimerspec *out) {
  if (out == NULL) return EFAULT;
  *out = current(f, node_now());
  return 0;
}

/* ---- reading and readiness ---- */

static bool timerfd_ready(void *arg) {
  struct net_file *f = arg;
  const struct net_timerfd *t = f->obj;
  return t->canceled || expirations(t, node_now()) > 0;
}

static uint64_t timerfd_next(void *arg) { return net_timerfd_next_change(arg, detsim__now_ns()); }

ssize_t net_timerfd_read(struct net_file *f, void *buf, size_t len) {
  struct net_timerfd *t = f->obj;
  if (len < sizeof(uint64_t)) {
    errno = EINVAL;
    return -1;
  }
  if (!timerfd_ready(f)) {
    if (f->nonblock) {
      errno = EAGAIN;
      return -1;
    }
    int wr = net_wait(DETSIM_EV_net_recv, f, timerfd_ready, timerfd_next, f, DETSIM_NO_DEADLINE);
    if (wr != 0) {
      errno = wr == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
  if (t->canceled) {
    t->canceled = false;
    f->changes++;
    errno = ECANCELED;
    return -1;
  }
  fold(t, node_now());
  uint64_t v = t->ticks;
  CHECK_GE(v, 1);
  t->ticks = 0;
  t->stopped = false;
  f->changes++;
  memcpy(buf, &v, sizeof v);
  return sizeof v;
}

/* These three take and give virtual time (net_fd.c's), the timer's own
 * being the node's. */
uint32_t net_timerfd_poll(struct net_file *f, uint64_t now) {
  /* Linux's timerfd_poll reports EPOLLIN alone (no EPOLLRDNORM). */
  const struct net_timerfd *t = f->obj;
  return t->canceled || expirations(t, detsim__clock_local_ns(now)) > 0 ? EPOLLIN : 0;
}

uint64_t net_timerfd_next_change(struct net_file *f, uint64_t now) {
  const struct net_timerfd *t = f->obj;
  if (t->stopped) return DETSIM_NO_DEADLINE; /* readable, and no edge comes until a read */
  return t->next > detsim__clock_local_ns(now) ? virtual_at(t->next) : DETSIM_NO_DEADLINE;
}

/* An expiration raises an edge once until the timer is read or moved on:
 * Linux's hrtimer stops at an expiration nobody has consumed. */
uint64_t net_timerfd_gen(struct net_file *f, uint64_t now) {
  const struct net_timerfd *t = f->obj;
  return t->stopped || t->canceled || t->next <= detsim__clock_local_ns(now) ? 1 : 0;
}
