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
#ifndef DETSIM_CLOCK_H
#define DETSIM_CLOCK_H

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

#endif
