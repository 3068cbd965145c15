/* time/: the one header of the runtime's time part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_TIME_PART_H
#define DETSIM_TIME_PART_H

/* Virtual time.
 *
 * One virtual clock per world, in nanoseconds since the run started.  It moves
 * only by the simulation: a little on each clock read and each yield point,
 * and in a jump to the next deadline when no thread can run.  Every clock id
 * reads the same virtual time with its own base: CLOCK_REALTIME starts at a
 * fixed epoch plus an offset drawn from the seed, the monotonic clocks at a
 * fixed boot offset, so all clocks agree and none goes back.
 *
 * A node of a world may read it askew (a skew fault, world_faults.c): its
 * clocks run at its own rate, 1 + drift, as a real host's oscillator makes
 * every clock of that host run (CLOCK_MONOTONIC included: only NTP would
 * correct it), and its CLOCK_REALTIME is offset from the other nodes'.
 * Time the program asks for, absolute or relative, is on the node's clocks:
 * the deadline functions below turn it back into virtual time, so a sleep
 * until T ends when the node's clock reads T.  Virtual time itself, and so
 * every deadline, timer and arrival inside the runtime, stays one clock.
 */

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct detsim_node_clock;

struct detsim_clock_state {
  uint64_t now_ns;            /* virtual ns since the start of the run */
  uint64_t realtime_base_ns;  /* CLOCK_REALTIME at now_ns == 0, before skew */
  /* This node's offset and drift: its record in the world's header (a
   * fault may set it while another node holds the world), or none. */
  const struct detsim_node_clock *skew;
  int64_t step_seen_ns;       /* the node's clock steps this process has
                                 taken account of (detsim__clock_take_step) */
};
extern struct detsim_clock_state detsim__clock;

/* Virtual nanoseconds since the start of the run (inline: it is read on
 * every event). */
static inline uint64_t detsim__now_ns(void) { return detsim__clock.now_ns; }
/* Reads clock `id` as a program sees it (advances time by clock_step_ns). */
int detsim__clock_read(clockid_t id, struct timespec *out);
/* The virtual deadline (ns since start) of an absolute time on clock `id`;
 * EINVAL for an unknown clock or a bad timespec.  A time in the past gives
 * the current time. */
int detsim__deadline_from_abstime(clockid_t id, const struct timespec *abstime, uint64_t *deadline_ns);
/* The deadline of a relative timeout from now (on the node's clocks). */
uint64_t detsim__deadline_after(const struct timespec *rel);
uint64_t detsim__deadline_after_ns(uint64_t rel_ns);
bool detsim__timespec_valid(const struct timespec *ts);
/* A valid timespec in ns, saturating where Linux's ktime does (KTIME_MAX:
 * DETSIM_CLOCK_LOCAL_NS_MAX), so arithmetic on timer values cannot overflow;
 * and back. */
uint64_t detsim__timespec_ns(const struct timespec *ts);
struct timespec detsim__ns_timespec(uint64_t ns);

/* The node's clocks in ns since the start of the run (before their bases):
 * at virtual time `virtual_ns`; and back, the earliest virtual time at which
 * they read `local_ns` or more.  Both never decrease; without skew both are
 * the identity. */
uint64_t detsim__clock_local_ns(uint64_t virtual_ns);
uint64_t detsim__clock_virtual_ns(uint64_t local_ns);

/* Clock steps: a `step` fault of a world moves a node's CLOCK_REALTIME at
 * once, as NTP stepping a host's clock does.  A wait or a timer set for an
 * absolute CLOCK_REALTIME time must end when the clock reads that time,
 * steps included, as Linux re-arms them.  The last absolute realtime time
 * a thread turned into a deadline is kept, and a blocking call of that
 * thread with that deadline takes it (false when its deadline is another),
 * so the scheduler can recompute the deadline after a step. */
bool detsim__clock_take_abs(uint64_t deadline_ns, clockid_t *id, uint64_t *abs_ns);
uint64_t detsim__deadline_of_abs_ns(clockid_t id, uint64_t abs_ns);
bool detsim__clock_is_realtime(clockid_t id);
/* How far this node's CLOCK_REALTIME jumped since the last call (0: no
 * step); the caller re-arms what depends on it. */
int64_t detsim__clock_take_step(void);

/* For the scheduler. */
void detsim__clock_init(uint64_t realtime_offset_ns);
/* In a world: this node's clock record in the header (world.c). */
void detsim__clock_follow(const struct detsim_node_clock *skew);
void detsim__clock_advance_to(uint64_t ns);
static inline void detsim__clock_advance_by(uint64_t ns) { detsim__clock.now_ns += ns; }

/* The cost model: the virtual time each kind of event takes (event_costs.inc). */

#include <stdint.h>

#include "trace/trace.h"

/* What the calling thread's instrumented code ran (passes/work.c adds to
 * it: IR instructions), and what of it the clock has been advanced for. */
extern __thread uint64_t __detsim_work __attribute__((tls_model("initial-exec")));
extern __thread uint64_t detsim__work_seen __attribute__((tls_model("initial-exec")));
extern uint64_t detsim__work_ps_left;
extern uint64_t detsim__work_ps_per_instr;

/* The virtual ns the work done since the last call took (cost_model). */
static inline uint64_t detsim__work_ns(void) {
  uint64_t w = __detsim_work;
  /* The counter went back (code interrupted inside its load-add-store of
   * the counter by a handler that counted too, then storing its stale
   * sum): no work is charged, rather than 2^64 instructions. */
  if (__builtin_expect(w < detsim__work_seen, 0)) detsim__work_seen = w;
  uint64_t ps = (w - detsim__work_seen) * detsim__work_ps_per_instr + detsim__work_ps_left;
  detsim__work_seen = w;
  detsim__work_ps_left = ps % 1000;
  return ps / 1000;
}

/* Filled from the options (cost_model, yield_step_ns) before the first event. */
extern uint64_t detsim__event_cost_ns[DETSIM_EV_COUNT];
void detsim__event_cost_init(void);

/* POSIX timers (timer_create and its family) on virtual time.
 *
 * A timer is a clock, its next expiry, an interval, and how it notifies.
 * SIGEV_SIGNAL and SIGEV_THREAD_ID post their signal lazily, as the
 * interval timers do (signal.c): an expired timer's signal counts as
 * pending from its expiry on, and is posted when the pending set is read to
 * be changed.  While its signal is still pending, later expiries are
 * overruns (si_overrun, timer_getoverrun), as in Linux.  SIGEV_THREAD gets
 * a helper thread that waits for each expiry and starts a detached thread
 * running the function (glibc's way).  SIGEV_NONE only keeps time.
 * Every function here runs holding the baton.
 */

#include <signal.h>
#include <stdint.h>
#include <time.h>

/* sched/ includes this part (through trace/): a forward name breaks the cycle. */
typedef struct detsim_thread detsim_thread;

/* The calls; each returns 0 (or the overrun count) or an errno value,
 * negated for timer_getoverrun. */
int detsim__ptimer_create(clockid_t clock, const struct sigevent *sev, timer_t *out);
int detsim__ptimer_settime(timer_t id, int flags, const struct itimerspec *value, struct itimerspec *old);
int detsim__ptimer_gettime(timer_t id, struct itimerspec *out);
int detsim__ptimer_getoverrun(timer_t id);
int detsim__ptimer_delete(timer_t id);
/* The timer's number in trace events (its index + 1; 0 for an unknown id). */
uint32_t detsim__ptimer_number(timer_t id);

/* For signal.c: the earliest expiry of a timer that sends a signal
 * (DETSIM_NO_DEADLINE when none), the signals of those expired by now for
 * thread t (NULL: the process's only), posting them, and the end of a
 * timer's overrun count when its signal is taken (returns the count). */
uint64_t detsim__ptimer_next(void);
uint64_t detsim__ptimer_due_bits(const detsim_thread *t);
void detsim__ptimer_fold(void);
int detsim__ptimer_taken(int timer);
/* This node's CLOCK_REALTIME stepped: timers armed at an absolute realtime
 * time expire when the clock reads it (time/time.h). */
void detsim__ptimer_clock_stepped(void);
/* si_timerid of a timer's signal. */
int detsim__ptimer_kernel_id(int timer);

#endif /* DETSIM_TIME_PART_H */
