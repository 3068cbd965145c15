/* Interceptors: signals, on the simulation's own state (signal.h).
 *
 * From a simulated thread every call here is a yield point and acts on the
 * simulated dispositions, masks and pending sets; no real signal is sent,
 * blocked or handled.  Outside the simulation (the runtime's own threads, a
 * thread in its real exit path) the calls go to the kernel, except
 * dispositions: a library's constructor that sets one before the run starts
 * sets the simulated one, which is the one the run will use.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "sched/sched.h"
#include "core/core.h"
#include "sanitize/sanitize.h"
#include "time/time.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "signal/signal.h"
#include "world/world.h"

#define PC() ((uintptr_t)__builtin_return_address(0))

static long fail(int e) {
  errno = e;
  return -1;
}

/* ---- dispositions ---- */

static int sim_sigaction(int sig, const struct sigaction *act, struct sigaction *old, uintptr_t pc) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield_aux(DETSIM_EV_signal_call, NULL, pc, (uint32_t)sig);
  else if (detsim__internal()) return REAL(sigaction)(sig, act, old);
  int r = detsim__sig_action(sig, act, old);
  return r ? (int)fail(r) : 0;
}

DETSIM_EXPORT int __detsim_sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  return sim_sigaction(sig, act, old, PC());
}
/* MSan's start-up installs its deadly-signal handlers through it. */
DETSIM_MSAN_EARLY(int, sigaction, (int sig, const struct sigaction *act, struct sigaction *old), (sig, act, old))

/* glibc's signal() has BSD semantics: the handler stays, calls restart. */
DETSIM_EXPORT sighandler_t __detsim_signal(int sig, sighandler_t handler) {
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART;
  sigemptyset(&act.sa_mask);
  if (sim_sigaction(sig, &act, &old, PC()) != 0) return SIG_ERR;
  return old.sa_handler;
}
DETSIM_INTERCEPT_ALIAS(signal)

DETSIM_EXPORT int __detsim_siginterrupt(int sig, int flag) {
  struct sigaction act;
  if (sim_sigaction(sig, NULL, &act, PC()) != 0) return -1;
  if (flag) act.sa_flags &= ~SA_RESTART;
  else act.sa_flags |= SA_RESTART;
  return sim_sigaction(sig, &act, NULL, PC());
}
DETSIM_INTERCEPT_ALIAS(siginterrupt)

/* ---- masks ---- */

/* Pending signals the new mask unblocks are delivered before the call
 * returns, as POSIX requires of sigprocmask. */
static int sim_mask(int how, const sigset_t *set, sigset_t *old, uintptr_t pc) {
  detsim_thread *self = detsim__self();
  detsim__yield_aux(DETSIM_EV_signal_call, NULL, pc, (uint32_t)how);
  if (set != NULL && how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK) return EINVAL;
  if (old != NULL) detsim__sig_set(self->sig_mask, old);
  if (set == NULL) return 0;
  uint64_t bits = detsim__sig_bits(set) & ~DETSIM_SIG_UNBLOCKABLE;
  if (how == SIG_BLOCK) self->sig_mask |= bits;
  else if (how == SIG_UNBLOCK) self->sig_mask &= ~bits;
  else self->sig_mask = bits;
  detsim__sig_deliver_due(self);
  return 0;
}

DETSIM_EXPORT int __detsim_pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
  if (detsim__self() == NULL) return REAL(pthread_sigmask)(how, set, old);
  return sim_mask(how, set, old, PC());
}
DETSIM_INTERCEPT_ALIAS(pthread_sigmask)

DETSIM_EXPORT int __detsim_sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  if (detsim__self() == NULL) return REAL(sigprocmask)(how, set, old);
  int r = sim_mask(how, set, old, PC());
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(sigprocmask)

DETSIM_EXPORT int __detsim_sigpending(sigset_t *set) {
  detsim_thread *self = detsim__self();
  if (self == NULL) return REAL(sigpending)(set);
  detsim__yield_aux(DETSIM_EV_signal_call, NULL, PC(), 0);
  detsim__sig_set(detsim__sig_pending_of(self) & self->sig_mask, set);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sigpending)

/* ---- sending ---- */

/* Reported once: a signal for a process outside the world. */
static int other_process(const char *call, pid_t pid) {
  static bool warned;
  if (!warned) {
    warned = true;
    detsim__msg("error: %s(%d): no process of the simulated world has that pid (only the process itself and, in "
                "a world, the other nodes' processes can be signalled); the call fails with ESRCH", call, (int)pid);
  }
  return ESRCH;
}

/* Init and the run's parent exist, outside the world: as processes of
 * another user, they may not be signalled (reported once). */
static int not_permitted(const char *call, pid_t pid) {
  static bool warned;
  if (!warned) {
    warned = true;
    detsim__msg("error: %s(%d): that process is outside the simulated world (pid %d is init, %d the run's parent); "
                "the call fails with EPERM", call, (int)pid, DETSIM_PID_INIT, DETSIM_PID_PARENT);
  }
  return EPERM;
}

static int sim_kill(const char *call, pid_t pid, int sig, int code, union sigval value, uintptr_t pc) {
  detsim_thread *self = detsim__self();
  detsim__yield_aux(DETSIM_EV_signal_send, NULL, pc, (uint32_t)sig);
  if (sig < 0 || sig > DETSIM_SIGNALS) return EINVAL;
  pid_t me = detsim__proc_pid();
  if (pid == -1) return detsim__world_kill_all(sig) > 0 ? 0 : other_process(call, pid);
  /* Its own group: the others of it (forked processes share it), then
   * itself. */
  if (pid == 0 || pid == -detsim__proc_pgid()) detsim__world_kill_group(detsim__proc_pgid(), sig);
  else if (pid != me) {
    if (pid == DETSIM_PID_INIT || pid == DETSIM_PID_PARENT || pid == -DETSIM_PID_INIT || pid == -DETSIM_PID_PARENT)
      return not_permitted(call, pid);
    return detsim__world_kill(pid, sig) == 0 ? 0 : other_process(call, pid);
  }
  if (sig == 0) return 0;
  int r = detsim__sig_send(NULL, sig, code, value);
  if (r != 0) return r;
  /* The caller takes an unblocked signal it sent itself before the call
   * returns (POSIX's guarantee for kill and raise). */
  detsim__sig_deliver_due(self);
  return 0;
}

DETSIM_EXPORT int __detsim_kill(pid_t pid, int sig) {
  if (detsim__self() == NULL) return REAL(kill)(pid, sig);
  int r = sim_kill("kill", pid, sig, SI_USER, DETSIM_SIGVAL_NONE, PC());
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(kill)

DETSIM_EXPORT int __detsim_killpg(pid_t pgrp, int sig) {
  if (detsim__self() == NULL) return REAL(killpg)(pgrp, sig);
  if (pgrp < 0) return (int)fail(EINVAL);
  int r = sim_kill("killpg", pgrp == 0 ? 0 : -pgrp, sig, SI_USER, DETSIM_SIGVAL_NONE, PC());
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(killpg)

DETSIM_EXPORT int __detsim_sigqueue(pid_t pid, int sig, const union sigval value) {
  if (detsim__self() == NULL) return REAL(sigqueue)(pid, sig, value);
  int r = sim_kill("sigqueue", pid, sig, SI_QUEUE, value, PC());
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(sigqueue)

static int sim_thread_kill(pthread_t thread, int sig, uintptr_t pc) {
  detsim_thread *self = detsim__self();
  detsim__yield_aux(DETSIM_EV_signal_send, NULL, pc, (uint32_t)sig);
  if (sig < 0 || sig > DETSIM_SIGNALS) return EINVAL;
  detsim_thread *to = detsim__thread_of(thread);
  if (to == NULL) return ESRCH;
  if (sig == 0) return 0;
  int r = detsim__sig_send(to, sig, SI_TKILL, DETSIM_SIGVAL_NONE);
  if (r != 0) return r;
  if (to == self) detsim__sig_deliver_due(self);
  return 0;
}

DETSIM_EXPORT int __detsim_pthread_kill(pthread_t thread, int sig) {
  if (detsim__self() == NULL) return REAL(pthread_kill)(thread, sig);
  return sim_thread_kill(thread, sig, PC());
}
DETSIM_INTERCEPT_ALIAS(pthread_kill)

DETSIM_EXPORT int __detsim_raise(int sig) {
  if (detsim__self() == NULL) return REAL(raise)(sig);
  int r = sim_thread_kill(pthread_self(), sig, PC());
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(raise)

/* ---- waiting for signals ---- */

static bool never(void *arg) {
  (void)arg;
  return false;
}

/* Waits with `mask` until a handler has run; always EINTR. */
static int suspend_with(uint64_t mask, uintptr_t pc) {
  detsim_thread *self = detsim__self();
  detsim__yield_aux(DETSIM_EV_signal_call, NULL, pc, 0);
  uint64_t saved = self->sig_mask;
  self->sig_mask = mask & ~DETSIM_SIG_UNBLOCKABLE;
  while (detsim__block_intr(DETSIM_EV_signal_call, NULL, never, NULL, DETSIM_NO_DEADLINE) != EINTR) {}
  self->sig_mask = saved;
  return (int)fail(EINTR);
}

DETSIM_EXPORT int __detsim_sigsuspend(const sigset_t *mask) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(sigsuspend)(mask);
  return suspend_with(detsim__sig_bits(mask), PC());
}
DETSIM_INTERCEPT_ALIAS(sigsuspend)

DETSIM_EXPORT int __detsim_pause(void) {
  DETSIM_CANCEL_POINT();
  detsim_thread *self = detsim__self();
  if (self == NULL) return REAL(pause)();
  return suspend_with(self->sig_mask, PC());
}
DETSIM_INTERCEPT_ALIAS(pause)

struct sigwait_arg {
  detsim_thread *t;
  uint64_t set;
};

static bool sigwait_ready(void *arg) {
  struct sigwait_arg *a = arg;
  return (detsim__sig_pending_of(a->t) & a->set) != 0;
}

/* Takes a signal of `set` (signo), or fails: EAGAIN at the deadline,
 * EINTR when a handler of another signal ran. */
static int sim_sigwait(const sigset_t *set, siginfo_t *info, uint64_t deadline, uintptr_t pc) {
  detsim_thread *self = detsim__self();
  detsim__yield_aux(DETSIM_EV_signal_call, NULL, pc, 0);
  struct sigwait_arg a = { self, detsim__sig_bits(set) & ~DETSIM_SIG_UNBLOCKABLE };
  int r = detsim__block_intr(DETSIM_EV_signal_call, NULL, sigwait_ready, &a, deadline);
  if (r == ETIMEDOUT) return -EAGAIN;
  if (r == EINTR) return -EINTR;
  siginfo_t local;
  int sig = detsim__sig_take(self, a.set, info ? info : &local);
  CHECK(sig != 0);
  return sig;
}

DETSIM_EXPORT int __detsim_sigwait(const sigset_t *set, int *sig) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(sigwait)(set, sig);
  int r;
  /* sigwait itself is never interrupted: glibc retries it (but a cancel
   * request ends it). */
  while ((r = sim_sigwait(set, NULL, DETSIM_NO_DEADLINE, PC())) == -EINTR && !detsim__cancel_cut()) {}
  if (r < 0) return EINTR; /* canceled: acts as the call returns */
  *sig = r;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sigwait)

DETSIM_EXPORT int __detsim_sigwaitinfo(const sigset_t *set, siginfo_t *info) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(sigwaitinfo)(set, info);
  int r = sim_sigwait(set, info, DETSIM_NO_DEADLINE, PC());
  return r < 0 ? (int)fail(-r) : r;
}
DETSIM_INTERCEPT_ALIAS(sigwaitinfo)

DETSIM_EXPORT int __detsim_sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(sigtimedwait)(set, info, timeout);
  uint64_t deadline = DETSIM_NO_DEADLINE;
  if (timeout != NULL) {
    if (!detsim__timespec_valid(timeout)) return (int)fail(EINVAL);
    deadline = detsim__deadline_after(timeout);
  }
  int r = sim_sigwait(set, info, deadline, PC());
  return r < 0 ? (int)fail(-r) : r;
}
DETSIM_INTERCEPT_ALIAS(sigtimedwait)

/* ---- interval timers, on virtual time ---- */

DETSIM_EXPORT int __detsim_setitimer(__itimer_which_t which, const struct itimerval *nv, struct itimerval *ov) {
  if (detsim__self() == NULL) return REAL(setitimer)(which, nv, ov);
  detsim__yield_aux(DETSIM_EV_signal_call, NULL, PC(), (uint32_t)which);
  if (nv == NULL) return (int)fail(EFAULT);
  int r = detsim__sig_setitimer((int)which, nv, ov);
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(setitimer)

DETSIM_EXPORT int __detsim_getitimer(__itimer_which_t which, struct itimerval *cur) {
  if (detsim__self() == NULL) return REAL(getitimer)(which, cur);
  detsim__yield_aux(DETSIM_EV_signal_call, NULL, PC(), (uint32_t)which);
  int r = detsim__sig_getitimer((int)which, cur);
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(getitimer)

DETSIM_EXPORT unsigned int __detsim_alarm(unsigned int seconds) {
  if (detsim__self() == NULL) return REAL(alarm)(seconds);
  detsim__yield_aux(DETSIM_EV_signal_call, NULL, PC(), seconds);
  struct itimerval nv = { { 0, 0 }, { (time_t)seconds, 0 } }, old;
  detsim__sig_setitimer(ITIMER_REAL, &nv, &old);
  /* As Linux rounds what was left: to the nearest second, never to 0. */
  unsigned left = (unsigned)old.it_value.tv_sec;
  if ((left == 0 && old.it_value.tv_usec > 0) || old.it_value.tv_usec >= 500000) left++;
  return left;
}
DETSIM_INTERCEPT_ALIAS(alarm)

DETSIM_EXPORT useconds_t __detsim_ualarm(useconds_t usecs, useconds_t interval) {
  if (detsim__self() == NULL) return REAL(ualarm)(usecs, interval);
  detsim__yield_aux(DETSIM_EV_signal_call, NULL, PC(), usecs);
  struct itimerval nv = { { (time_t)(interval / 1000000u), (suseconds_t)(interval % 1000000u) },
                          { (time_t)(usecs / 1000000u), (suseconds_t)(usecs % 1000000u) } },
                   old;
  detsim__sig_setitimer(ITIMER_REAL, &nv, &old);
  return (useconds_t)(old.it_value.tv_sec * 1000000 + old.it_value.tv_usec);
}
DETSIM_INTERCEPT_ALIAS(ualarm)

/* ---- POSIX timers, on virtual time (posix_timer.c) ---- */

DETSIM_EXPORT int __detsim_timer_create(clockid_t clock, struct sigevent *sev, timer_t *id) {
  if (detsim__self() == NULL) return REAL(timer_create)(clock, sev, id);
  detsim__yield_aux(DETSIM_EV_timer_call, NULL, PC(), 0);
  if (id == NULL) return (int)fail(EFAULT);
  int r = detsim__ptimer_create(clock, sev, id);
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(timer_create)

DETSIM_EXPORT int __detsim_timer_settime(timer_t id, int flags, const struct itimerspec *nv, struct itimerspec *ov) {
  if (detsim__self() == NULL) return REAL(timer_settime)(id, flags, nv, ov);
  detsim__yield_aux(DETSIM_EV_timer_call, NULL, PC(), detsim__ptimer_number(id));
  if (nv == NULL) return (int)fail(EFAULT);
  int r = detsim__ptimer_settime(id, flags, nv, ov);
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(timer_settime)

DETSIM_EXPORT int __detsim_timer_gettime(timer_t id, struct itimerspec *cur) {
  if (detsim__self() == NULL) return REAL(timer_gettime)(id, cur);
  detsim__yield_aux(DETSIM_EV_timer_call, NULL, PC(), detsim__ptimer_number(id));
  if (cur == NULL) return (int)fail(EFAULT);
  int r = detsim__ptimer_gettime(id, cur);
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(timer_gettime)

DETSIM_EXPORT int __detsim_timer_getoverrun(timer_t id) {
  if (detsim__self() == NULL) return REAL(timer_getoverrun)(id);
  detsim__yield_aux(DETSIM_EV_timer_call, NULL, PC(), detsim__ptimer_number(id));
  int r = detsim__ptimer_getoverrun(id);
  return r < 0 ? (int)fail(-r) : r;
}
DETSIM_INTERCEPT_ALIAS(timer_getoverrun)

DETSIM_EXPORT int __detsim_timer_delete(timer_t id) {
  if (detsim__self() == NULL) return REAL(timer_delete)(id);
  detsim__yield_aux(DETSIM_EV_timer_call, NULL, PC(), detsim__ptimer_number(id));
  int r = detsim__ptimer_delete(id);
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(timer_delete)

/* ---- leaving a handler by siglongjmp ---- */

/* sigsetjmp saved the kernel's mask, not the simulation's: a siglongjmp
 * that restores a mask and leaves a running handler gives the thread the
 * simulated mask it had before that handler (docs/signals.md). */
DETSIM_EXPORT _Noreturn void __detsim_siglongjmp(sigjmp_buf env, int val) {
  detsim__sig_longjmp(env, env[0].__mask_was_saved);
  REAL(siglongjmp)(env, val);
}
DETSIM_INTERCEPT_ALIAS(siglongjmp)

/* glibc's longjmp is siglongjmp: a buffer from sigsetjmp(env, 1) restores. */
DETSIM_EXPORT _Noreturn void __detsim_longjmp(jmp_buf env, int val) {
  detsim__sig_longjmp(env, env[0].__mask_was_saved);
  REAL(longjmp)(env, val);
}
DETSIM_INTERCEPT_ALIAS(longjmp)

/* The fortified form of longjmp (_FORTIFY_SOURCE). */
_Noreturn void __longjmp_chk(jmp_buf env, int val);
DETSIM_EXPORT _Noreturn void __detsim___longjmp_chk(jmp_buf env, int val) {
  detsim__sig_longjmp(env, env[0].__mask_was_saved);
  REAL(__longjmp_chk)(env, val);
  __builtin_unreachable();
}
DETSIM_INTERCEPT_ALIAS(__longjmp_chk)
