/* POSIX timers on virtual time (time/time.h).
 *
 * Rules of this file:
 *  - Times are virtual ns, as the interval timers' (signal.c): a relative
 *    value and the interval are measured on the node's own clock when the
 *    timer is set (a skewed node's timers run at its pace), an absolute one
 *    is when the timer's clock reads it (clock.c).  CPU-time clocks run on
 *    virtual time, as ITIMER_VIRTUAL does.
 *  - A timer's signal is posted by detsim__ptimer_fold at the first look at
 *    the pending set after its expiry, at the same point of every run.
 */
#include "time/time.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "limits.h"
#include "sched/sched.h"
#include "signal/signal.h"

struct ptimer {
  bool live;
  unsigned generation;      /* creations of this slot: a SIGEV_THREAD helper
                               serves one, and leaves when it is deleted */
  clockid_t clock;
  int notify;               /* SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD, SIGEV_THREAD_ID */
  int sig;
  pid_t tid;                /* SIGEV_THREAD_ID: the thread it signals */
  union sigval value;
  void (*function)(union sigval);
  uint64_t at;              /* next expiry, DETSIM_NO_DEADLINE when disarmed */
  uint64_t interval;        /* virtual ns between expiries, 0: one-shot */
  uint64_t asked;           /* the interval as set, on the node's clock */
  bool rt_abs;              /* armed at an absolute CLOCK_REALTIME time ... */
  uint64_t rt_next;         /* ... and the time it reads at the next expiry */
  int overrun;              /* expiries since its signal was posted, not taken */
  int last_overrun;         /* timer_getoverrun: the count of the last one taken */
};

static struct ptimer timers[DETSIM_MAX_POSIX_TIMERS];
/* Slots ever used: the scans on the signal path stop there (a program
 * with no timers pays nothing). */
static unsigned slots_used;

/* timer_t values: far from the small numbers the kernel gives its timers. */
#define ID_BASE 0x7d500000u

static timer_t id_of(unsigned index) { return (timer_t)(uintptr_t)(ID_BASE + index); }

static struct ptimer *find(timer_t id) {
  uintptr_t v = (uintptr_t)id;
  if (v < ID_BASE || v - ID_BASE >= DETSIM_MAX_POSIX_TIMERS) return NULL;
  struct ptimer *p = &timers[v - ID_BASE];
  return p->live ? p : NULL;
}

static int number_of(const struct ptimer *p) { return (int)(p - timers) + 1; }

uint32_t detsim__ptimer_number(timer_t id) {
  const struct ptimer *p = find(id);
  return p ? (uint32_t)number_of(p) : 0;
}

int detsim__ptimer_kernel_id(int timer) { return (int)(ID_BASE + (unsigned)(timer - 1)); }

static bool signals(const struct ptimer *p) {
  return p->live && (p->notify == SIGEV_SIGNAL || p->notify == SIGEV_THREAD_ID);
}

static detsim_thread *thread_by_tid(pid_t tid) {
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if ((t->state == DETSIM_T_RUNNABLE || t->state == DETSIM_T_BLOCKED) && t->tid == tid) return t;
  }
  return NULL;
}

static uint64_t expiries_due(const struct ptimer *p, uint64_t now) {
  if (p->at > now) return 0;
  return p->interval == 0 ? 1 : 1 + (now - p->at) / p->interval;
}

static void move_on(struct ptimer *p, uint64_t n) {
  p->at = p->interval == 0 ? DETSIM_NO_DEADLINE : p->at + n * p->interval;
  p->rt_next += n * p->asked;
}

void detsim__ptimer_clock_stepped(void) {
  for (unsigned i = 0; i < slots_used; i++) {
    struct ptimer *p = &timers[i];
    if (p->live && p->rt_abs && p->at != DETSIM_NO_DEADLINE) p->at = detsim__deadline_of_abs_ns(p->clock, p->rt_next);
  }
  detsim__sig_timers_changed();
  detsim__sched_times_changed(); /* a SIGEV_THREAD helper waits for `at` */
}

static void add_overrun(struct ptimer *p, uint64_t n) {
  uint64_t sum = (uint64_t)p->overrun + n;
  p->overrun = sum > INT_MAX ? INT_MAX : (int)sum; /* DELAYTIMER_MAX */
}

/* ---- the signal path (signal.c) ---- */

uint64_t detsim__ptimer_next(void) {
  uint64_t at = DETSIM_NO_DEADLINE;
  for (unsigned i = 0; i < slots_used; i++)
    if (signals(&timers[i]) && timers[i].at < at) at = timers[i].at;
  return at;
}

uint64_t detsim__ptimer_due_bits(const detsim_thread *t) {
  uint64_t now = detsim__now_ns(), bits = 0;
  for (unsigned i = 0; i < slots_used; i++) {
    const struct ptimer *p = &timers[i];
    if (!signals(p) || p->at > now) continue;
    /* A SIGEV_THREAD_ID timer whose thread exited is the process's (as its
     * signal is posted: detsim__ptimer_fold). */
    bool for_process = p->notify == SIGEV_SIGNAL || thread_by_tid(p->tid) == NULL;
    if (for_process || (t != NULL && t->tid == p->tid)) bits |= detsim__sig_bit(p->sig);
  }
  return bits;
}

void detsim__ptimer_fold(void) {
  uint64_t now = detsim__now_ns();
  for (unsigned i = 0; i < slots_used; i++) {
    struct ptimer *p = &timers[i];
    if (!signals(p)) continue;
    uint64_t n = expiries_due(p, now);
    if (n == 0) continue;
    /* A thread that has exited leaves its timer's signal to the process. */
    detsim_thread *to = p->notify == SIGEV_THREAD_ID ? thread_by_tid(p->tid) : NULL;
    if (detsim__sig_post_timer(to, p->sig, p->value, number_of(p))) add_overrun(p, n - 1);
    else add_overrun(p, n);
    move_on(p, n);
  }
}

int detsim__ptimer_taken(int timer) {
  if (timer == 0) return 0; /* its timer was deleted */
  CHECK(timer >= 1 && timer <= DETSIM_MAX_POSIX_TIMERS);
  struct ptimer *p = &timers[timer - 1];
  p->last_overrun = p->overrun;
  p->overrun = 0;
  return p->last_overrun;
}

/* ---- SIGEV_THREAD: a helper thread per timer ---- */

struct notification {
  void (*function)(union sigval);
  union sigval value;
};

static void *notify_main(void *arg) {
  struct notification n = *(struct notification *)arg;
  free(arg);
  n.function(n.value);
  return NULL;
}

/* What a helper serves: its timer's slot and creation. */
struct helper {
  struct ptimer *p;
  unsigned generation;
};

static bool gone(const struct helper *h) { return !h->p->live || h->p->generation != h->generation; }

static bool helper_ready(void *arg) {
  const struct helper *h = arg;
  return gone(h) || h->p->at <= detsim__now_ns();
}

static uint64_t helper_next(void *arg) {
  const struct helper *h = arg;
  return gone(h) ? detsim__now_ns() : h->p->at;
}

static void *helper_main(void *arg) {
  struct helper h = *(struct helper *)arg;
  free(arg);
  struct ptimer *p = h.p;
  /* Signals are the program's threads' to take, never the helper's. */
  detsim__self()->sig_mask = ~DETSIM_SIG_UNBLOCKABLE;
  pthread_attr_t detached;
  pthread_attr_init(&detached);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  for (;;) {
    while (!helper_ready(&h))
      detsim__block_follow(DETSIM_EV_timer_wait, p, helper_ready, helper_next, &h, DETSIM_NO_DEADLINE);
    if (gone(&h)) break;
    uint64_t n = expiries_due(p, detsim__now_ns());
    move_on(p, n);
    p->overrun = 0;
    add_overrun(p, n - 1);
    p->last_overrun = p->overrun;
    struct notification *note = malloc(sizeof *note);
    CHECK(note != NULL);
    *note = (struct notification){ p->function, p->value };
    pthread_t t;
    if (detsim__thread_create(&t, &detached, notify_main, note) != 0) free(note);
  }
  pthread_attr_destroy(&detached);
  return NULL;
}

/* ---- the calls ---- */

static bool cpu_clock(clockid_t c) { return c == CLOCK_PROCESS_CPUTIME_ID || c == CLOCK_THREAD_CPUTIME_ID; }

int detsim__ptimer_create(clockid_t clock, const struct sigevent *sev, timer_t *out) {
  if (clock == CLOCK_REALTIME_ALARM || clock == CLOCK_BOOTTIME_ALARM) return EPERM; /* no CAP_WAKE_ALARM, as timerfd */
  if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC && clock != CLOCK_BOOTTIME && !cpu_clock(clock))
    return EINVAL;
  struct sigevent dflt = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
  if (sev == NULL) sev = &dflt;
  int notify = sev->sigev_notify;
  if (notify != SIGEV_SIGNAL && notify != SIGEV_NONE && notify != SIGEV_THREAD && notify != SIGEV_THREAD_ID)
    return EINVAL;
  if ((notify == SIGEV_SIGNAL || notify == SIGEV_THREAD_ID) && (sev->sigev_signo < 1 || sev->sigev_signo > DETSIM_SIGNALS))
    return EINVAL;
  if (notify == SIGEV_THREAD && sev->sigev_notify_function == NULL) return EINVAL;
  if (notify == SIGEV_THREAD_ID && thread_by_tid(sev->_sigev_un._tid) == NULL) return EINVAL;
  struct ptimer *p = NULL;
  for (unsigned i = 0; i < DETSIM_MAX_POSIX_TIMERS && p == NULL; i++)
    if (!timers[i].live) p = &timers[i];
  if (p == NULL) return EAGAIN;
  if ((unsigned)(p - timers) >= slots_used) slots_used = (unsigned)(p - timers) + 1;
  *p = (struct ptimer){
    .live = true, .generation = p->generation + 1, .clock = clock, .notify = notify, .sig = sev->sigev_signo,
    .tid = notify == SIGEV_THREAD_ID ? sev->_sigev_un._tid : 0,
    /* With no sigevent, the signal carries the timer's id (POSIX). */
    .value = sev == &dflt ? (union sigval){ .sival_int = detsim__ptimer_kernel_id(number_of(p)) } : sev->sigev_value,
    .function = notify == SIGEV_THREAD ? sev->sigev_notify_function : NULL, .at = DETSIM_NO_DEADLINE,
  };
  if (notify == SIGEV_THREAD) {
    struct helper *h = malloc(sizeof *h);
    CHECK(h != NULL);
    *h = (struct helper){ p, p->generation };
    pthread_t helper;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int r = detsim__thread_create(&helper, &attr, helper_main, h);
    pthread_attr_destroy(&attr);
    if (r != 0) {
      free(h);
      p->live = false;
      return r;
    }
  }
  *out = id_of((unsigned)(p - timers));
  return 0;
}

/* The time to the next expiry after now (0: disarmed), and the interval.
 * Expiries not yet folded (a SIGEV_NONE timer's, or a SIGEV_THREAD timer's
 * before its helper runs) are past: the next one counts. */
static void current(const struct ptimer *p, struct itimerspec *out) {
  uint64_t now = detsim__now_ns(), next = p->at;
  if (next <= now) next = p->interval == 0 ? DETSIM_NO_DEADLINE : p->at + expiries_due(p, now) * p->interval;
  out->it_value = detsim__ns_timespec(next == DETSIM_NO_DEADLINE ? 0 : next - now);
  out->it_interval = detsim__ns_timespec(p->asked);
}

int detsim__ptimer_gettime(timer_t id, struct itimerspec *out) {
  struct ptimer *p = find(id);
  if (p == NULL) return EINVAL;
  if (signals(p)) detsim__ptimer_fold();
  current(p, out);
  return 0;
}

int detsim__ptimer_settime(timer_t id, int flags, const struct itimerspec *value, struct itimerspec *old) {
  struct ptimer *p = find(id);
  if (p == NULL || (flags & ~TIMER_ABSTIME)) return EINVAL;
  if (!detsim__timespec_valid(&value->it_value) || !detsim__timespec_valid(&value->it_interval)) return EINVAL;
  if (signals(p)) detsim__ptimer_fold();
  if (old != NULL) current(p, old);
  uint64_t v = detsim__timespec_ns(&value->it_value), now = detsim__now_ns();
  p->asked = detsim__timespec_ns(&value->it_interval);
  p->rt_abs = false;
  if (v == 0) {
    p->at = DETSIM_NO_DEADLINE;
    p->asked = 0;
  } else if (flags & TIMER_ABSTIME) {
    CHECK_EQ(detsim__deadline_from_abstime(p->clock, &value->it_value, &p->at), 0);
    p->rt_abs = detsim__clock_is_realtime(p->clock);
    p->rt_next = v;
  } else {
    p->at = detsim__deadline_after(&value->it_value);
  }
  p->interval = p->asked == 0 ? 0 : detsim__deadline_after_ns(p->asked) - now;
  if (p->asked != 0 && p->interval == 0) p->interval = 1;
  detsim__sig_timers_changed();
  detsim__sched_times_changed(); /* a SIGEV_THREAD helper waits for `at` */
  return 0;
}

int detsim__ptimer_getoverrun(timer_t id) {
  const struct ptimer *p = find(id);
  return p == NULL ? -EINVAL : p->last_overrun;
}

int detsim__ptimer_delete(timer_t id) {
  struct ptimer *p = find(id);
  if (p == NULL) return EINVAL;
  if (signals(p)) detsim__ptimer_fold(); /* an expiry due by now is a pending signal */
  int number = number_of(p);
  /* The slot is free at once; a SIGEV_THREAD helper sees it gone and leaves. */
  *p = (struct ptimer){ .generation = p->generation, .at = DETSIM_NO_DEADLINE };
  /* Its signal, if still pending, stays (as Linux keeps it), no longer
   * the timer's: a timer reusing the slot counts its own overruns. */
  detsim__sig_orphan_timer(number);
  detsim__sig_timers_changed();
  return 0;
}
