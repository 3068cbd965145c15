/* Signals inside the simulation: dispositions, pending sets, delivery and
 * the interval timers (signal.h).  The API the program calls is in
 * intercept_signal.c.
 *
 * Rules of this file:
 *  - Only the baton holder changes this state (dispositions may also be set
 *    before the runtime starts, by a library's constructor: nothing runs
 *    concurrently then).
 *  - A standard signal has at most one pending instance per target; a
 *    real-time one queues its instances (signal/signal.h), the first in the
 *    target's slot as a standard one's, the later ones in the queue.
 *  - The interval timers post their signal lazily: an expired timer counts
 *    as pending from its expiry on, and is folded into the pending set
 *    whenever the set is read to be changed, so expiry needs no event of its
 *    own and happens at the same point of every run of the seed.
 */
#include "signal/signal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/core.h"
#include "time/time.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "trace/trace.h"
#include "world/world.h"
#include "net/net.h"

uint64_t detsim__sig_shared;
uint64_t detsim__sig_sent;
uint64_t detsim__sig_timer_at = DETSIM_NO_DEADLINE;

/* Dispositions, as sigaction() set them (sa_handler SIG_DFL: default). */
static struct sigaction actions[DETSIM_SIGNALS + 1];
/* What each pending process-directed signal carries. */
static struct detsim_sig_info shared_info[DETSIM_SIGNALS + 1];

/* ---- default actions (signal(7)) ---- */

enum default_action { ACT_TERM, ACT_IGN, ACT_STOP, ACT_CONT };

static enum default_action default_action(int sig) {
  switch (sig) {
  case SIGCHLD: case SIGURG: case SIGWINCH: return ACT_IGN;
  case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU: return ACT_STOP;
  case SIGCONT: return ACT_CONT;
  default: return ACT_TERM; /* core-dumping ones too: the run ends either way */
  }
}

static bool is_ignored(int sig) {
  void (*h)(int) = actions[sig].sa_handler;
  if (actions[sig].sa_flags & SA_SIGINFO) return false;
  if (h == SIG_IGN) return true;
  return h == SIG_DFL && (default_action(sig) == ACT_IGN || default_action(sig) == ACT_CONT);
}

/* ---- interval timers (setitimer's three, and alarm) ---- */

struct itimer {
  uint64_t at;        /* next expiry, DETSIM_NO_DEADLINE when disarmed */
  uint64_t interval;  /* virtual ns between expiries, 0: one-shot */
  uint64_t asked;     /* the interval as set, on the node's own clock */
};
/* ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF, all disarmed at first. */
static struct itimer itimers[3] = { { DETSIM_NO_DEADLINE, 0, 0 }, { DETSIM_NO_DEADLINE, 0, 0 },
                                    { DETSIM_NO_DEADLINE, 0, 0 } };
static const int itimer_signal[3] = { SIGALRM, SIGVTALRM, SIGPROF };

/* The earliest expiry of the interval timers and of the POSIX timers that
 * send signals. */
static void timer_at_refresh(void) {
  uint64_t at = detsim__ptimer_next();
  for (int i = 0; i < 3; i++)
    if (itimers[i].at < at) at = itimers[i].at;
  if (net_sigurg_next() < at) at = net_sigurg_next();
  detsim__sig_timer_at = at;
}

void detsim__sig_timers_changed(void) { timer_at_refresh(); }

/* The signals of expired timers for t (NULL: the process's only). */
static uint64_t due_timer_bits(const detsim_thread *t) {
  uint64_t now = detsim__now_ns(), bits = 0;
  if (detsim__sig_timer_at > now) return 0;
  for (int i = 0; i < 3; i++)
    if (itimers[i].at <= now) bits |= detsim__sig_bit(itimer_signal[i]);
  if (net_sigurg_next() <= now) bits |= detsim__sig_bit(SIGURG);
  return bits | detsim__ptimer_due_bits(t);
}

/* Expired timers post their signal to the process; a periodic one rearms
 * past now (expiries missed meanwhile merge into the one pending signal,
 * as a standard signal's do). */
static void fold_timers(void) {
  uint64_t now = detsim__now_ns();
  if (detsim__sig_timer_at > now) return;
  for (int i = 0; i < 3; i++) {
    struct itimer *it = &itimers[i];
    if (it->at > now) continue;
    int sig = itimer_signal[i];
    if (!is_ignored(sig)) {
      detsim__sig_shared |= detsim__sig_bit(sig);
      shared_info[sig] = (struct detsim_sig_info){ .code = SI_KERNEL };
    }
    if (it->interval == 0) it->at = DETSIM_NO_DEADLINE;
    else it->at += ((now - it->at) / it->interval + 1) * it->interval;
  }
  detsim__ptimer_fold();
  if (net_sigurg_next() <= now) {
    /* Urgent data arrived for a socket this process owns (net_oob.c). */
    net_sigurg_taken(now);
    if (!is_ignored(SIGURG)) {
      detsim__sig_shared |= detsim__sig_bit(SIGURG);
      shared_info[SIGURG] = (struct detsim_sig_info){ .code = SI_KERNEL };
    }
  }
  timer_at_refresh();
}

static uint64_t ns_of_timeval(const struct timeval *tv) {
  return (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
}

static void timeval_of_ns(uint64_t ns, struct timeval *tv) {
  tv->tv_sec = (time_t)(ns / 1000000000ull);
  tv->tv_usec = (suseconds_t)((ns % 1000000000ull + 999) / 1000); /* never 0 while armed */
  if (tv->tv_usec == 1000000) {
    tv->tv_sec++;
    tv->tv_usec = 0;
  }
}

int detsim__sig_getitimer(int which, struct itimerval *out) {
  if (which < 0 || which > 2) return EINVAL;
  uint64_t now = detsim__now_ns();
  const struct itimer *it = &itimers[which];
  timeval_of_ns(it->at == DETSIM_NO_DEADLINE || it->at <= now ? 0 : it->at - now, &out->it_value);
  timeval_of_ns(it->asked, &out->it_interval);
  return 0;
}

int detsim__sig_setitimer(int which, const struct itimerval *nv, struct itimerval *old) {
  if (which < 0 || which > 2) return EINVAL;
  if (nv->it_value.tv_sec < 0 || nv->it_value.tv_usec < 0 || nv->it_value.tv_usec >= 1000000 ||
      nv->it_interval.tv_sec < 0 || nv->it_interval.tv_usec < 0 || nv->it_interval.tv_usec >= 1000000)
    return EINVAL;
  fold_timers();
  if (old) detsim__sig_getitimer(which, old);
  /* Times are on the node's own monotonic clock (a skewed node's runs fast
   * or slow: clock.c), kept in virtual ns. */
  uint64_t value = ns_of_timeval(&nv->it_value), now = detsim__now_ns();
  struct itimer *it = &itimers[which];
  it->at = value == 0 ? DETSIM_NO_DEADLINE : detsim__deadline_after_ns(value);
  it->asked = value == 0 ? 0 : ns_of_timeval(&nv->it_interval);
  it->interval = it->asked == 0 ? 0 : detsim__deadline_after_ns(it->asked) - now;
  if (it->asked != 0 && it->interval == 0) it->interval = 1;
  timer_at_refresh();
  return 0;
}

/* ---- pending sets ---- */

uint64_t detsim__sig_pending_of(const detsim_thread *t) {
  return t->sig_pending | detsim__sig_shared | due_timer_bits(t);
}

uint64_t detsim__sig_process_pending(void) { return detsim__sig_shared | due_timer_bits(NULL); }

bool detsim__sig_deliverable(const detsim_thread *t) {
  return (detsim__sig_pending_of(t) & ~t->sig_mask) != 0;
}

void detsim__sig_thread_init(detsim_thread *child, const detsim_thread *parent) {
  child->sig_mask = parent ? parent->sig_mask : 0;
  child->sig_pending = 0;
  detsim__sigq_drop(child, false, 0); /* a thread that had the slot before */
}

/* Every thread blocks sig: a process-directed instance stays pending. */
static bool blocked_everywhere(int sig) {
  for (unsigned i = 0; i < W.slots_used; i++) {
    const detsim_thread *t = &W.threads[i];
    if ((t->state == DETSIM_T_RUNNABLE || t->state == DETSIM_T_BLOCKED) && !(t->sig_mask & detsim__sig_bit(sig)))
      return false;
  }
  return true;
}

#define STOP_SIGNALS \
  (detsim__sig_bit(SIGSTOP) | detsim__sig_bit(SIGTSTP) | detsim__sig_bit(SIGTTIN) | detsim__sig_bit(SIGTTOU))

void detsim__sig_discard(uint64_t bits) {
  detsim__sig_shared &= ~bits;
  for (unsigned i = 0; i < W.slots_used; i++) W.threads[i].sig_pending &= ~bits;
}

/* 0, or EAGAIN when a real-time signal's queue is full. */
static int post(detsim_thread *to, int sig, struct detsim_sig_info info) {
  CHECK(sig >= 1 && sig <= DETSIM_SIGNALS);
  /* Whatever the dispositions, as Linux's prepare_signal: a stop signal
   * discards a pending SIGCONT, a SIGCONT the pending stop signals (the
   * continue itself is the sender's: a stopped process sends nothing). */
  if (detsim__sig_bit(sig) & STOP_SIGNALS) detsim__sig_discard(detsim__sig_bit(SIGCONT));
  else if (sig == SIGCONT) detsim__sig_discard(STOP_SIGNALS);
  /* An ignored signal is discarded when sent, unless it is blocked (then
   * sigwait may still take it). */
  if (to != NULL ? is_ignored(sig) && !(to->sig_mask & detsim__sig_bit(sig)) : is_ignored(sig) && !blocked_everywhere(sig))
    return 0;
  uint64_t *pending = to ? &to->sig_pending : &detsim__sig_shared;
  if ((*pending & detsim__sig_bit(sig)) && detsim__sig_queues(sig)) {
    if (!detsim__sigq_push(to, sig, info)) return EAGAIN;
  } else {
    *pending |= detsim__sig_bit(sig);
    if (to) to->sig_info[sig - 1] = info;
    else shared_info[sig] = info;
  }
  if (to == NULL) detsim__sig_sent++;
  return 0;
}

int detsim__sig_send(detsim_thread *to, int sig, int code, union sigval value) {
  return detsim__sig_send_from(to, sig, code, value, detsim__proc_pid());
}

int detsim__sig_send_from(detsim_thread *to, int sig, int code, union sigval value, int pid) {
  return post(to, sig, (struct detsim_sig_info){ .code = code, .value = value, .pid = pid });
}

int detsim__sig_send_chld(pid_t pid, int code, int status) {
  return post(NULL, SIGCHLD, (struct detsim_sig_info){ .code = code, .value = { .sival_int = status }, .pid = pid });
}

void detsim__sig_orphan_timer(int timer) {
  for (int sig = 1; sig <= DETSIM_SIGNALS; sig++) {
    if (shared_info[sig].code == SI_TIMER && shared_info[sig].timer == timer) shared_info[sig].timer = 0;
    for (unsigned i = 0; i < W.slots_used; i++)
      if (W.threads[i].sig_info[sig - 1].code == SI_TIMER && W.threads[i].sig_info[sig - 1].timer == timer)
        W.threads[i].sig_info[sig - 1].timer = 0;
  }
  detsim__sigq_orphan_timer(timer);
}

bool detsim__sig_post_timer(detsim_thread *to, int sig, union sigval value, int timer) {
  uint64_t pending = to ? to->sig_pending : detsim__sig_shared;
  const struct detsim_sig_info *was = to ? &to->sig_info[sig - 1] : &shared_info[sig];
  if ((pending & detsim__sig_bit(sig)) && was->code == SI_TIMER && was->timer == timer) return false;
  if (detsim__sigq_holds_timer(to, sig, timer)) return false;
  /* A full queue: the expiry is an overrun. */
  return post(to, sig, (struct detsim_sig_info){ .code = SI_TIMER, .timer = timer, .value = value }) == 0;
}

/* Takes one pending signal of `set` for t: its own first, then the
 * process's, lowest number first (as Linux dequeues them).  0 if none. */
int detsim__sig_take(detsim_thread *t, uint64_t set, siginfo_t *info) {
  fold_timers();
  uint64_t own = t->sig_pending & set, shared = detsim__sig_shared & set;
  if ((own | shared) == 0) return 0;
  int sig;
  struct detsim_sig_info carried;
  /* The next queued instance, if any, takes the slot: still pending. */
  if (own) {
    sig = __builtin_ctzll(own) + 1;
    carried = t->sig_info[sig - 1];
    if (!detsim__sig_queues(sig) || !detsim__sigq_pop(t, sig, &t->sig_info[sig - 1])) t->sig_pending &= ~detsim__sig_bit(sig);
  } else {
    sig = __builtin_ctzll(shared) + 1;
    carried = shared_info[sig];
    if (!detsim__sig_queues(sig) || !detsim__sigq_pop(NULL, sig, &shared_info[sig])) detsim__sig_shared &= ~detsim__sig_bit(sig);
  }
  /* Taking a timer's signal ends its overrun count (timer_getoverrun). */
  int overrun = carried.code == SI_TIMER ? detsim__ptimer_taken(carried.timer) : 0;
  if (info) {
    memset(info, 0, sizeof *info);
    info->si_signo = sig;
    info->si_code = carried.code;
    if (carried.code == SI_USER || carried.code == SI_TKILL || carried.code == SI_QUEUE) {
      info->si_pid = carried.pid;
      info->si_uid = getuid();
    }
    if (sig == SIGCHLD && (carried.code == CLD_EXITED || carried.code == CLD_KILLED || carried.code == CLD_DUMPED ||
                           carried.code == CLD_STOPPED || carried.code == CLD_CONTINUED)) {
      info->si_pid = carried.pid;
      info->si_uid = getuid();
      info->si_status = carried.value.sival_int;
      return sig;
    }
    if (carried.code == SI_TIMER) {
      info->si_timerid = carried.timer ? detsim__ptimer_kernel_id(carried.timer) : 0;
      info->si_overrun = overrun;
    }
    info->si_value = carried.value;
  }
  return sig;
}

uint64_t detsim__sig_bits(const sigset_t *set) {
  uint64_t bits = 0;
  for (int s = 1; s <= DETSIM_SIGNALS; s++)
    if (sigismember(set, s) == 1) bits |= detsim__sig_bit(s);
  return bits;
}

void detsim__sig_set(uint64_t bits, sigset_t *out) {
  sigemptyset(out);
  for (int s = 1; s <= DETSIM_SIGNALS; s++)
    if (bits & detsim__sig_bit(s)) sigaddset(out, s);
}

uint64_t detsim__sig_mask_enter(const sigset_t *mask) {
  detsim_thread *self = detsim__self();
  if (self == NULL) return 0;
  uint64_t saved = self->sig_mask;
  if (mask != NULL) self->sig_mask = detsim__sig_bits(mask) & ~DETSIM_SIG_UNBLOCKABLE;
  return saved;
}

void detsim__sig_mask_leave(uint64_t saved) {
  detsim_thread *self = detsim__self();
  if (self != NULL) self->sig_mask = saved;
}

/* ---- dispositions ---- */

int detsim__sig_action(int sig, const struct sigaction *act, struct sigaction *old) {
  if (sig < 1 || sig > DETSIM_SIGNALS) return EINVAL;
  if (old) *old = actions[sig];
  if (act == NULL) return 0;
  if (sig == SIGKILL || sig == SIGSTOP) return EINVAL;
  actions[sig] = *act;
  if (sig == SIGCHLD) detsim__sig_mirror_nocldstop();
  /* Setting a signal to be ignored discards its pending instances. */
  if (is_ignored(sig)) {
    detsim__sig_shared &= ~detsim__sig_bit(sig);
    for (unsigned i = 0; i < W.slots_used; i++) W.threads[i].sig_pending &= ~detsim__sig_bit(sig);
    detsim__sigq_drop(NULL, true, sig);
  }
  return 0;
}

void detsim__sig_mirror_nocldstop(void) {
  if (detsim__in_world) detsim__ws->nodes[detsim__node_index].nocldstop = (actions[SIGCHLD].sa_flags & SA_NOCLDSTOP) != 0;
}

/* ---- delivery ---- */

static void signal_name(int sig, char *out, size_t n) {
  const char *abbrev = sigabbrev_np(sig);
  if (abbrev) snprintf(out, n, "SIG%s", abbrev);
  else snprintf(out, n, "SIGRTMIN+%d", sig - SIGRTMIN);
}

_Noreturn static void default_ends_process(detsim_thread *self, int sig, const char *why) {
  char name[24], extra[48];
  signal_name(sig, name, sizeof name);
  if (detsim__proc_is_forked())
    detsim__msg("process %d ends by %s (its default action); its parent is told", (int)detsim__proc_pid(), name);
  else
    detsim__msg("crash: %s (%s) in thread T%u: %s", name, sigdescr_np(sig) ? sigdescr_np(sig) : "real-time signal",
              self->id, why ? why : "its default action ends the process");
  snprintf(extra, sizeof extra, "signal=%s", name);
  detsim__proc_ending_signal = sig; /* a forked child ends by it (world_proc.c) */
  detsim__finish(DETSIM_CLASS_crash, 0, extra);
}

/* Runs sig's handler on this thread, as the kernel would on the way out of
 * a system call: with sa_mask and sig itself blocked meanwhile. */
static void run_handler(detsim_thread *self, int sig, const siginfo_t *info) {
  struct sigaction a = actions[sig];
  if (a.sa_flags & SA_RESETHAND) {
    memset(&actions[sig], 0, sizeof actions[sig]);
    actions[sig].sa_handler = SIG_DFL;
  }
  uint64_t saved = self->sig_mask;
  unsigned depth = self->handler_depth;
  if (depth < sizeof self->handler_saved / sizeof self->handler_saved[0]) self->handler_saved[depth] = saved;
  self->handler_depth = depth + 1;
  uint64_t add = detsim__sig_bits(&a.sa_mask);
  if (!(a.sa_flags & SA_NODEFER)) add |= detsim__sig_bit(sig);
  self->sig_mask |= add & ~DETSIM_SIG_UNBLOCKABLE;
  if (a.sa_flags & SA_SIGINFO) {
    /* No machine context exists at a yield point: handlers get a zeroed
     * one rather than a pointer that faults. */
    static __thread ucontext_t blank;
    siginfo_t copy = *info;
    a.sa_sigaction(sig, &copy, &blank);
  } else {
    a.sa_handler(sig);
  }
  self->sig_mask = saved;
  self->handler_depth = depth;
}

static unsigned deliver_one(detsim_thread *self, int sig, const siginfo_t *info, const char *why) {
  detsim__event(DETSIM_EV_signal_deliver, self, NULL, 0, (uint32_t)sig);
  void (*h)(int) = actions[sig].sa_handler;
  if (!(actions[sig].sa_flags & SA_SIGINFO) && h == SIG_IGN) return 0;
  if (!(actions[sig].sa_flags & SA_SIGINFO) && h == SIG_DFL) {
    switch (default_action(sig)) {
    case ACT_TERM:
      if (sig == SIGTERM) detsim__world_term_default();
      default_ends_process(self, sig, why);
    case ACT_STOP: detsim__proc_stop(self, sig); return 0; /* returns once continued */
    case ACT_IGN:
    case ACT_CONT: return 0;
    }
  }
  bool restart = (actions[sig].sa_flags & SA_RESTART) != 0;
  run_handler(self, sig, info);
  return DETSIM_SIG_HANDLED | (restart ? DETSIM_SIG_RESTART : 0);
}

unsigned detsim__sig_deliver(detsim_thread *self) {
  unsigned done = 0;
  bool all_restart = true;
  siginfo_t info;
  int sig;
  while ((sig = detsim__sig_take(self, ~self->sig_mask, &info)) != 0) {
    unsigned r = deliver_one(self, sig, &info, NULL);
    if (r & DETSIM_SIG_HANDLED) {
      done |= DETSIM_SIG_HANDLED;
      if (!(r & DETSIM_SIG_RESTART)) all_restart = false;
    }
  }
  return done && all_restart ? done | DETSIM_SIG_RESTART : done;
}

void detsim__sig_note_setjmp(const void *env) {
  detsim_thread *self = detsim__self();
  if (self == NULL || env == NULL) return;
  unsigned i = DETSIM_JMP_MARKS;
  for (unsigned k = 0; k < DETSIM_JMP_MARKS && i == DETSIM_JMP_MARKS; k++)
    if (self->jmp_marks[k].env == env) i = k; /* the same buffer again */
  if (i == DETSIM_JMP_MARKS) {
    i = self->jmp_next;
    self->jmp_next = (i + 1) % DETSIM_JMP_MARKS;
  }
  self->jmp_marks[i].env = env;
  self->jmp_marks[i].mask = self->sig_mask;
  self->jmp_marks[i].handler_depth = self->handler_depth;
  self->jmp_marks[i].cancel_point = self->cancel_point;
}

void detsim__sig_longjmp(const void *env, bool mask_saved) {
  detsim_thread *self = detsim__self();
  if (self == NULL) return;
  for (unsigned k = 0; k < DETSIM_JMP_MARKS; k++) {
    if (self->jmp_marks[k].env != env) continue;
    /* The handlers running since that sigsetjmp never return. */
    if (self->jmp_marks[k].handler_depth <= self->handler_depth) self->handler_depth = self->jmp_marks[k].handler_depth;
    if (self->jmp_marks[k].cancel_point <= self->cancel_point) self->cancel_point = self->jmp_marks[k].cancel_point;
    if (mask_saved) self->sig_mask = self->jmp_marks[k].mask;
    return;
  }
  if (!mask_saved || self->handler_depth == 0) return;
  unsigned depth = --self->handler_depth;
  if (depth < sizeof self->handler_saved / sizeof self->handler_saved[0]) self->sig_mask = self->handler_saved[depth];
}

void detsim__sig_raise_sync(int sig, const char *why) {
  detsim_thread *self = detsim__self();
  if (self == NULL) return;
  if (is_ignored(sig)) return;
  if (self->sig_mask & detsim__sig_bit(sig)) {
    detsim__sig_send(self, sig, SI_KERNEL, DETSIM_SIGVAL_NONE);
    return;
  }
  siginfo_t info;
  memset(&info, 0, sizeof info);
  info.si_signo = sig;
  info.si_code = SI_KERNEL;
  deliver_one(self, sig, &info, why);
}

/* The child of a simulated fork (world_proc.c): pending signals and
 * interval timers are not inherited (fork(2)). */
void detsim__sig_fork_child(void) {
  detsim__sig_shared = 0;
  for (int i = 0; i < 3; i++) itimers[i] = (struct itimer){ DETSIM_NO_DEADLINE, 0, 0 };
  timer_at_refresh();
}

/* ---- exec (proc_exec.c) ---- */

/* What execve keeps (execve(2), signal(7)): the thread's mask and pending
 * signals, the process's pending ones, and the ignored dispositions; a
 * handled signal is reset to its default (the handler is not in the new
 * image).  Queued siginfo is not carried over; the interval timers are
 * (below). */
void detsim__sig_exec_save(uint64_t *mask, uint64_t *pending_thread, uint64_t *pending_process, uint64_t *ignored) {
  detsim_thread *self = detsim__self();
  *mask = self ? self->sig_mask : 0;
  *pending_thread = self ? self->sig_pending : 0;
  *pending_process = detsim__sig_shared;
  *ignored = 0;
  for (int sig = 1; sig <= DETSIM_SIGNALS; sig++)
    if (!(actions[sig].sa_flags & SA_SIGINFO) && actions[sig].sa_handler == SIG_IGN) *ignored |= detsim__sig_bit(sig);
}

/* Interval timers survive execve (setitimer(2)): their deadlines are on
 * the world's virtual clock, which the new image goes on with. */
void detsim__sig_exec_timers_save(uint64_t out[DETSIM_EXEC_TIMER_WORDS]) {
  for (int i = 0; i < 3; i++) {
    out[3 * i] = itimers[i].at;
    out[3 * i + 1] = itimers[i].interval;
    out[3 * i + 2] = itimers[i].asked;
  }
}

void detsim__sig_exec_timers_restore(const uint64_t in[DETSIM_EXEC_TIMER_WORDS]) {
  for (int i = 0; i < 3; i++)
    itimers[i] = (struct itimer){ .at = in[3 * i], .interval = in[3 * i + 1], .asked = in[3 * i + 2] };
  timer_at_refresh();
}

void detsim__sig_exec_restore(uint64_t mask, uint64_t pending_thread, uint64_t pending_process, uint64_t ignored) {
  detsim_thread *self = detsim__self();
  CHECK(self != NULL);
  for (int sig = 1; sig <= DETSIM_SIGNALS; sig++)
    if (ignored & detsim__sig_bit(sig)) actions[sig].sa_handler = SIG_IGN;
  self->sig_mask = mask;
  self->sig_pending = pending_thread;
  detsim__sig_shared = pending_process;
  /* The flags went with the old image's handlers (SA_NOCLDSTOP too). */
  detsim__sig_mirror_nocldstop();
}
