/* signal/: the one header of the runtime's signal part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_SIGNAL_PART_H
#define DETSIM_SIGNAL_PART_H

/* Real signals from outside the simulation (outside_signal.c).
 *
 * A SIGTERM, SIGINT, SIGHUP, SIGQUIT or SIGALRM that the kernel delivers
 * (a CI's timeout, an orchestrator, Ctrl-C, simrun --timeout) is never a
 * simulated one: it ends the run as `inconclusive` with
 * `reason=signal signal=SIG...` on the result line, stdio flushed.  The
 * program's own handlers for those signals are simulated and only run for
 * signals sent inside the simulation.
 */

#include <stdint.h>

/* The signal that came, once (0: none yet); a futex word the watchdog
 * waits on. */
extern uint32_t detsim__outside_sig;

/* Installs the real handlers (init, before the program runs). */
void detsim__outside_install(void);
/* The thread holding the baton met an event after the signal came: ends
 * the run there, where stdio can be flushed as at an exit. */
_Noreturn void detsim__outside_end_at_event(void);
/* The watchdog thread saw the signal: gives the holder a moment to end
 * the run at its next event, else ends it itself (a thread stuck outside
 * the simulation), or in a world tells the launcher. */
void detsim__outside_watch(void);
/* Flushes stdout and stderr unless a thread holds their locks: from a
 * thread that must not block (the watchdog, a signal handler). */
void detsim__outside_flush_stdio(void);

/* The queue of real-time signals (signal.c's second and later instances).
 *
 * A standard signal is pending once per target whatever is sent; a
 * real-time one (32 and up, as the kernel counts) queues every instance
 * with its own siginfo, and they are taken in the order sent.  signal.c
 * keeps the first pending instance of each signal in the target's slot (as
 * for a standard signal); the later ones wait here, in one FIFO for the
 * whole process, bounded by DETSIM_MAX_QUEUED_SIGNALS (a send beyond fails
 * with EAGAIN, as Linux's does beyond RLIMIT_SIGPENDING).
 */

#include <stdbool.h>

#include "sched/sched.h"

/* Whether sig queues its instances. */
static inline bool detsim__sig_queues(int sig) { return sig >= 32; }

/* Appends an instance for `to` (NULL: the process); false when the queue
 * is full. */
bool detsim__sigq_push(const detsim_thread *to, int sig, struct detsim_sig_info info);
/* Takes the oldest queued instance of sig for `to` into *out; false if none. */
bool detsim__sigq_pop(const detsim_thread *to, int sig, struct detsim_sig_info *out);
/* Drops the queued instances of sig (0: every signal) for `to`; to_any:
 * for every target. */
void detsim__sigq_drop(const detsim_thread *to, bool to_any, int sig);
/* Whether a queued instance of sig for `to` came from POSIX timer `timer`. */
bool detsim__sigq_holds_timer(const detsim_thread *to, int sig, int timer);
/* Timer `timer` was deleted: its queued signals stay, no longer its. */
void detsim__sigq_orphan_timer(int timer);

/* Signals inside the simulation.
 *
 * No simulated signal is ever a real one: the dispositions, the masks, the
 * pending sets and the interval timers are the runtime's, and a signal is
 * delivered only at a yield point of the thread that takes it (or while it
 * is blocked: the wait is interrupted as the kernel would interrupt it), in
 * an order drawn from the seed like every other choice.  Real signals stay
 * for what only the kernel raises (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT
 * from abort): those end the run as a crash.
 *
 * Which thread takes a process-directed signal is not chosen when it is
 * sent: it waits in the process's pending set, and the first thread that
 * does not block it and reaches a yield point (or is picked while blocked)
 * takes it, so the schedule decides, from the seed.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>

#include "time/time.h"

/* Signals 1..64 as bits 0..63 of a mask. */
#define DETSIM_SIGNALS 64
static inline uint64_t detsim__sig_bit(int sig) { return 1ull << (sig - 1); }

/* Process-directed signals pending, and the earliest expiry of an armed
 * interval timer (DETSIM_NO_DEADLINE when none): read on every yield point. */
extern uint64_t detsim__sig_shared;
extern uint64_t detsim__sig_timer_at;

/* Cheap test for the yield path: might a signal be pending for t? */
static inline bool detsim__sig_maybe(const detsim_thread *t) {
  return (t->sig_pending | detsim__sig_shared) != 0 || detsim__sig_timer_at <= detsim__now_ns();
}

/* The signals pending for t (its own, the process's, expired timers'). */
uint64_t detsim__sig_pending_of(const detsim_thread *t);
/* The process-directed signals pending (expired timers' included), and
 * how many were ever sent (for a signalfd's edges). */
uint64_t detsim__sig_process_pending(void);
extern uint64_t detsim__sig_sent;

/* Some pending signal is not blocked by t: t must take it. */
bool detsim__sig_deliverable(const detsim_thread *t);

/* What detsim__sig_deliver did. */
#define DETSIM_SIG_HANDLED 1u  /* a handler ran */
#define DETSIM_SIG_RESTART 2u  /* every handler that ran had SA_RESTART */
/* Delivers every signal t can take now: runs handlers on this thread,
 * discards ignored signals, ends the run for a default action that ends the
 * process.  The caller holds the baton and is in no runtime operation. */
unsigned detsim__sig_deliver(detsim_thread *self);
/* Delivers what t must take now, if anything (the check is the cheap one
 * first: it runs at every yield point). */
static inline void detsim__sig_deliver_due(detsim_thread *t) {
  if (__builtin_expect(detsim__sig_maybe(t), 0) && detsim__sig_deliverable(t)) detsim__sig_deliver(t);
}

/* Sends sig: to `to` (thread-directed) or to the process (to == NULL).
 * `code` is the siginfo si_code (SI_USER, SI_TKILL, SI_KERNEL, SI_QUEUE),
 * `value` sigqueue's.  0, or EAGAIN when a real-time signal's queue is
 * full (DETSIM_MAX_QUEUED_SIGNALS). */
int detsim__sig_send(detsim_thread *to, int sig, int code, union sigval value);
/* SIGCHLD to this process for a child that ended (world_lifecycle.c):
 * si_code CLD_*, si_pid and si_status as Linux fills them. */
int detsim__sig_send_chld(pid_t pid, int code, int status);
#define DETSIM_SIGVAL_NONE ((union sigval){ .sival_ptr = NULL })
/* As detsim__sig_send, from the process with virtual pid `pid` (si_pid):
 * another node's kill(), the world's SIGTERM. */
int detsim__sig_send_from(detsim_thread *to, int sig, int code, union sigval value, int pid);
/* A POSIX timer's expiry posts sig (SI_TIMER) to `to` or the process;
 * false when that timer's previous signal is still pending there (the
 * expiry is an overrun).  An ignored signal is discarded (true). */
bool detsim__sig_post_timer(detsim_thread *to, int sig, union sigval value, int timer);
/* A POSIX timer was deleted: its signal, still pending, stays pending but
 * no longer belongs to it (timer 0). */
void detsim__sig_orphan_timer(int timer);
/* The interval or POSIX timers changed: the earliest expiry is looked up
 * again (for the yield path's check). */
void detsim__sig_timers_changed(void);

/* A signal raised by the calling thread's own operation (SIGPIPE from a
 * write): delivered before the operation returns, as the kernel does.
 * `why` says what raised it, for the crash message of a default action. */
void detsim__sig_raise_sync(int sig, const char *why);

/* Takes one pending signal of `set` for t (its own first, then the
 * process's, lowest number first, as Linux dequeues them), filling info;
 * 0 when none is pending. */
int detsim__sig_take(detsim_thread *t, uint64_t set, siginfo_t *info);

/* Drops the pending instances of the signals in `bits` (standard ones),
 * the process's and every thread's: what another process's SIGCONT or
 * stop signal discards (world_lifecycle.c). */
void detsim__sig_discard(uint64_t bits);

/* sigaction() and the interval timers, on the simulation's state; each
 * returns 0 or an errno value. */
int detsim__sig_action(int sig, const struct sigaction *act, struct sigaction *old);
/* In a world, the process's slot says whether its SIGCHLD has
 * SA_NOCLDSTOP, for the processes that stop or continue its children
 * (proc_stop.c): set again whenever that may have changed. */
void detsim__sig_mirror_nocldstop(void);
int detsim__sig_setitimer(int which, const struct itimerval *nv, struct itimerval *old);
int detsim__sig_getitimer(int which, struct itimerval *out);

/* sigset_t to and from the bit masks above; SIGKILL and SIGSTOP can never
 * be blocked, so a mask drops them. */
uint64_t detsim__sig_bits(const sigset_t *set);
void detsim__sig_set(uint64_t bits, sigset_t *out);
#define DETSIM_SIG_UNBLOCKABLE (detsim__sig_bit(SIGKILL) | detsim__sig_bit(SIGSTOP))

/* ppoll, pselect, epoll_pwait: the wait runs with `mask` (NULL: unchanged)
 * and the thread's own mask is back afterwards.  Returns the saved mask. */
uint64_t detsim__sig_mask_enter(const sigset_t *mask);
void detsim__sig_mask_leave(uint64_t saved);

/* sigsetjmp saves the kernel's mask, not the simulation's: the pass puts a
 * note before each sigsetjmp (and _setjmp) call, and the calling thread's
 * simulated mask and running handlers are kept for that buffer (the last
 * DETSIM_JMP_MARKS buffers of each thread).  A longjmp back to it ends the
 * handlers it leaves, and restores that mask if the buffer saved one
 * (mask_saved).  A buffer with no note (set outside instrumented code):
 * the innermost running handler ends, and a saved mask is the one from
 * before it. */
void detsim__sig_note_setjmp(const void *env);
void detsim__sig_longjmp(const void *env, bool mask_saved);

/* A new thread inherits its creator's mask and starts with nothing pending. */
void detsim__sig_thread_init(detsim_thread *child, const detsim_thread *parent);

/* The next expiry of an interval timer after now (for the scheduler's time
 * jumps), DETSIM_NO_DEADLINE when none. */
static inline uint64_t detsim__sig_next_timer(void) {
  return detsim__sig_timer_at > detsim__now_ns() ? detsim__sig_timer_at : DETSIM_NO_DEADLINE;
}

#endif /* DETSIM_SIGNAL_PART_H */
