/* The scheduler: simulated threads, the baton, strategies, blocking.
 *
 * Rules of this file:
 *  - Exactly one simulated thread holds the baton at a time; only it reads or
 *    writes W (the world).  A thread gives the baton by storing 1 into the
 *    next thread's futex word and waking it, then waits on its own word.
 *    In a world the words are shared, and another node may store
 *    DETSIM_BATON_WORLD there: the world came to this node, and the woken
 *    thread makes the node's choice (sched_world.c).
 *  - Every decision draws from W.rng (the seed's "scheduler" stream) in an
 *    order fixed by the history, so a seed replays exactly; in choice mode
 *    from the choices file's bytes first (fuzz/fuzz.h).
 *  - Blocked threads wait on predicates that the scheduler evaluates when it
 *    picks; a thread whose deadline passed is runnable and sees ETIMEDOUT.
 */
#include "sched/sched.h"
#include "sync/sync.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/core.h"
#include "time/time.h"
#include "limits.h"
#include "machine/machine.h"
#include "signal/signal.h"
#include "fuzz/fuzz.h"
#include "fuzz_abi.h"
#include "trace/trace.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sanitize/sanitize.h"
#include "world/world.h"

struct detsim_world W;

_Static_assert(DETSIM_MAX_THREADS == DETSIM_WORLD_THREADS_MAX, "a world holds a baton word per thread slot");

__thread detsim_thread *detsim__tls_self __attribute__((tls_model("initial-exec")));

/* PCT: a thread that ran this many events in a row without a switch has its
 * priority lowered, so a spin-wait at high priority can't starve the thread
 * it waits for (strict priorities would livelock it). */
#define PCT_STARVATION_EVENTS 10000

void detsim__sched_set_self(detsim_thread *t) { detsim__tls_self = t; }
uint64_t detsim__event_count(void) { return detsim__events(); }
uint64_t detsim__seed(void) { return W.seed; }
bool detsim__running(void) { return W.running; }
uint64_t detsim__sched_draw(void) { return detsim__rng_next(&W.rng); }

static __thread int tls_internal __attribute__((tls_model("initial-exec")));

void detsim__internal_begin(void) {
  tls_internal++;
  if (detsim__tls_self) detsim__tls_self->suppress++;
}
void detsim__internal_end(void) {
  tls_internal--;
  if (detsim__tls_self) detsim__tls_self->suppress--;
}
bool detsim__internal(void) { return tls_internal > 0; }

void detsim__suppress_begin(void) {
  if (detsim__tls_self) detsim__tls_self->suppress++;
}
void detsim__suppress_end(void) {
  if (detsim__tls_self) {
    CHECK_GE(detsim__tls_self->suppress, 1);
    detsim__tls_self->suppress--;
  }
}

/* ---- the baton ---- */

/* In a world the batons are shared words (another node wakes the thread
 * that takes the world), so the futex calls are not private there. */
static int futex_private = FUTEX_PRIVATE_FLAG;

static void futex_wait(uint32_t *word, uint32_t val) {
  REAL(syscall)(SYS_futex, word, FUTEX_WAIT | futex_private, val, NULL, NULL, 0);
}
static void futex_wake(uint32_t *word) {
  REAL(syscall)(SYS_futex, word, FUTEX_WAKE | futex_private, 1, NULL, NULL, 0);
}

static void init_baton(detsim_thread *t) {
  t->baton = detsim__in_world ? detsim__world_baton((unsigned)(t - W.threads)) : &t->own_baton;
  __atomic_store_n(t->baton, 0, __ATOMIC_RELAXED);
}

void detsim__sched_give_baton(detsim_thread *next) {
  W.current = next;
  __atomic_store_n(next->baton, DETSIM_BATON_RUN, __ATOMIC_RELEASE);
  futex_wake(next->baton);
}

void detsim__sched_wait_baton(detsim_thread *self) {
  for (;;) {
    uint32_t v, *word;
    while ((v = __atomic_load_n(word = __atomic_load_n(&self->baton, __ATOMIC_ACQUIRE), __ATOMIC_ACQUIRE)) == 0)
      futex_wait(word, 0);
    if (v == DETSIM_BATON_MOVED) continue; /* the run's first fork moved it */
    if (v == DETSIM_BATON_WORLD) {
      __atomic_store_n(self->baton, 0, __ATOMIC_RELAXED);
      if (detsim__sched_take_world(self)) return;
      continue;
    }
    if (!self->report_request) return;
    /* The deadlock reporter lent us the baton to capture where we block. */
    self->report_request = false;
    detsim__backtrace_text(self->where, sizeof self->where, 1);
    __atomic_store_n(self->baton, 0, __ATOMIC_RELAXED);
    detsim__sched_give_baton(W.reporter);
  }
}

void detsim__sched_switch_to(detsim_thread *self, detsim_thread *next) {
  if (next == self) return;
  if (__builtin_expect(detsim__fuzz_on, 0)) detsim__fuzz_switch(self->site_pc, next->site_pc);
  detsim__trace_event(DETSIM_EV_switch, self->id, NULL, 0, next->id);
  self->run_length = 0;
  __atomic_store_n(self->baton, 0, __ATOMIC_RELAXED);
  detsim__sched_give_baton(next);
  detsim__sched_wait_baton(self);
  CHECK(W.current == self);
}

/* ---- events ---- */

/* The virtual time at which detsim__event must look up: the time limit, or
 * in a world the next fault, whichever comes first. */
void detsim__sched_refresh_time_stop(void) {
  W.time_stop = W.max_sim_time_ns;
  if (!detsim__in_world) return;
  uint64_t f = detsim__world_next_fault();
  if (f < W.time_stop) W.time_stop = f;
  uint64_t l = detsim__world_liveness_deadline();
  if (l < W.time_stop) W.time_stop = l;
}

static void event_limits(void) {
  /* The run is ending: its last writes are events too (output), and must
   * not end it again. */
  if (detsim__report_finishing()) return;
  if (__builtin_expect(__atomic_load_n(&detsim__outside_sig, __ATOMIC_ACQUIRE) != 0, 0)) detsim__outside_end_at_event();
  uint64_t n = detsim__events();
  if (__builtin_expect(n >= detsim__opt.max_events, 0)) {
    char extra[96];
    snprintf(extra, sizeof extra, "limit=max_events=%" PRIu64, detsim__opt.max_events);
    detsim__msg("the run reached its event limit max_events=%" PRIu64 " (a livelock, or raise DETSIM_OPTIONS=max_events=N)",
                detsim__opt.max_events);
    detsim__finish(DETSIM_CLASS_inconclusive, 0, extra);
  }
  if (__builtin_expect(detsim__now_ns() >= W.max_sim_time_ns, 0)) {
    char extra[96];
    snprintf(extra, sizeof extra, "limit=max_sim_time_s=%" PRIu64, detsim__opt.max_sim_time_s);
    detsim__msg("the run reached its virtual time limit max_sim_time_s=%" PRIu64, detsim__opt.max_sim_time_s);
    detsim__finish(DETSIM_CLASS_inconclusive, 0, extra);
  }
  if (n >= W.break_at) {
    W.break_at = UINT64_MAX;
    detsim__break_now(n);
  }
  if (detsim__in_world) {
    detsim__world_faults_due();
    if (detsim__now_ns() >= detsim__world_liveness_deadline() && !detsim__world_faults_held)
      detsim__world_liveness_failed();
    detsim__sched_refresh_time_stop();
  }
  W.event_stop = detsim__opt.max_events < W.break_at ? detsim__opt.max_events : W.break_at;
  /* A signal from outside that came meanwhile keeps the slow path open
   * (its handler set event_stop before this store). */
  if (__atomic_load_n(&detsim__outside_sig, __ATOMIC_ACQUIRE) != 0) W.event_stop = 0;
}

uint64_t detsim__event(enum detsim_event_kind kind, detsim_thread *t, const void *obj,
                       uintptr_t pc, uint32_t aux) {
  uint64_t n = detsim__trace_event(kind, t ? t->id : 0, obj, pc, aux);
  if (t) t->steps++;
  uint64_t cost = detsim__event_cost_ns[kind] + detsim__work_ns();
  detsim__clock_advance_by(cost);
  if (t && t->state == DETSIM_T_RUNNABLE) detsim__cpu_charge(t, cost);
  if (__builtin_expect(n >= W.event_stop || detsim__now_ns() >= W.time_stop, 0)) event_limits();
  return n;
}

/* ---- picking the next thread ---- */

/* When a following wait looks again: at its own deadline, or at the next
 * arrival before it. */
uint64_t detsim__sched_follow_deadline(detsim_thread *t) {
  uint64_t x = t->next(t->ready_arg);
  return x < t->until ? x : t->until;
}

void detsim__sched_times_changed(void) { W.times_stale = true; }

/* Arrivals were posted since the following waits computed their times:
 * each looks again at its own next arrival (an arrival for another wait
 * moves nothing). */
static void refollow_all(void) {
  W.times_stale = false;
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t->state == DETSIM_T_BLOCKED && t->next != NULL) t->deadline = detsim__sched_follow_deadline(t);
  }
}

/* A blocked thread whose deadline came: whether it wakes for it.  A
 * following wait whose own deadline is still ahead looks for the next
 * arrival instead (whether this one made it ready is its predicate's
 * answer).  next() names times after now; should one not, the thread
 * wakes and its wait looks again, as any spurious wake-up. */
static bool deadline_wakes(detsim_thread *t, uint64_t now) {
  if (t->next == NULL || t->until <= now) return true;
  t->deadline = detsim__sched_follow_deadline(t);
  return t->deadline <= now;
}

static bool can_run(detsim_thread *t) {
  if (t->state == DETSIM_T_RUNNABLE) return true;
  if (t->state != DETSIM_T_BLOCKED) return false;
  uint64_t now = detsim__now_ns();
  if (t->deadline <= now && deadline_wakes(t, now)) return true;
  if (__builtin_expect(detsim__sig_maybe(t), 0) && detsim__sig_deliverable(t)) return true;
  if (__builtin_expect(t->block_cancelable, 0) && detsim__cancel_due(t)) return true;
  return t->ready(t->ready_arg);
}

/* Runnable threads, in slot order (a fixed order keeps draws replayable). */
unsigned detsim__sched_collect_runnable(detsim_thread **out, detsim_thread *exclude) {
  unsigned n = 0;
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t != exclude && can_run(t)) out[n++] = t;
  }
  /* Real-time priorities first (machine_cpu.c). */
  if (__builtin_expect(detsim__rt_ever, 0)) n = detsim__machine_rt_filter(out, n, exclude);
  return n;
}

uint64_t detsim__sched_next_deadline(void) {
  if (W.times_stale) refollow_all();
  uint64_t d = detsim__sig_next_timer();
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t->state == DETSIM_T_BLOCKED && t->deadline < d) d = t->deadline;
  }
  return d;
}

/* A decision among n options: in choice mode the next byte of the choices
 * file while bytes remain (a decision with one option takes none), else
 * the seed's scheduler stream. */
uint64_t detsim__sched_draw_below(uint64_t n) {
  uint8_t b;
  if (__builtin_expect(detsim__choices_on, 0) && n > 1 && detsim__choices_next(&b)) return b % n;
  return detsim__rng_below(&W.rng, n);
}

static detsim_thread *find_candidate(detsim_thread **cands, unsigned n, uint32_t id) {
  for (unsigned i = 0; i < n; i++)
    if (cands[i]->id == id) return cands[i];
  return NULL;
}

/* Some candidate must run.  A plan's default is the first in slot order;
 * any other choice is recorded (trace/trace.h). */
static detsim_thread *pick(detsim_thread **cands, unsigned n) {
  CHECK_GE(n, 1);
  detsim_thread *me = W.current;
  CHECK(me != NULL);
  detsim_thread *best = cands[0];
  if (detsim__plan_replaying) {
    detsim_thread *planned = find_candidate(cands, n, detsim__plan_take(me->id, me->steps, DETSIM_PLAN_SWITCH));
    if (planned) best = planned;
  } else if (!W.pct) {
    best = cands[detsim__sched_draw_below(n)];
  } else {
    for (unsigned i = 1; i < n; i++)
      if (cands[i]->priority > best->priority) best = cands[i];
  }
  if (best != cands[0]) detsim__plan_record(me->id, me->steps, DETSIM_PLAN_SWITCH, best->id);
  return best;
}

/* Some thread other than `exclude` (which can't run) must run: waits out
 * deadlines in virtual time, reports a deadlock when nothing can ever run. */
static detsim_thread *pick_when_stuck(detsim_thread *self, detsim_thread *exclude) {
  detsim_thread *cands[DETSIM_MAX_THREADS];
  for (;;) {
    unsigned n = detsim__sched_collect_runnable(cands, exclude);
    if (n > 0) return pick(cands, n);
    uint64_t d = detsim__sched_next_deadline();
    if (d == DETSIM_NO_DEADLINE) detsim__deadlock(self);
    detsim__clock_advance_to(d);
    detsim__event(DETSIM_EV_time_jump, self, NULL, 0, 0);
  }
}

static void pct_lower(detsim_thread *t, int64_t prio) {
  t->priority = prio;
}

/* A new thread's priority: above every change point's and every lowered
 * one, drawn from the seed. */
static int64_t pct_new_priority(void) {
  return (int64_t)(DETSIM_PCT_DEPTH_MAX + 1 + (detsim__rng_next(&W.rng) >> 2));
}

_Static_assert(DETSIM_PCT_DEPTH_MAX <= DETSIM_WORLD_PCT_CHANGES_MAX, "a world holds every change point");

void detsim__sched_pct_share(struct detsim_world_pct *shared) {
  if (!W.pct) return;
  *shared = *W.pct_points;
  shared->on = 1;
  W.pct_points = shared;
}

int64_t detsim__sched_pct_top(bool idle) {
  detsim_thread *cands[DETSIM_MAX_THREADS];
  unsigned n = idle ? 0 : detsim__sched_collect_runnable(cands, NULL);
  int64_t top = INT64_MIN;
  for (unsigned i = 0; i < n; i++)
    if (cands[i]->priority > top) top = cands[i]->priority;
  if (n > 0) return top;
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if ((t->state == DETSIM_T_RUNNABLE || t->state == DETSIM_T_BLOCKED) && t->priority > top) top = t->priority;
  }
  return top;
}

/* PCT step at a yield point: apply a change point if this event is one, then
 * run the highest-priority runnable thread (in a world: of every process,
 * sched_world.c). */
static void pct_step(detsim_thread *self) {
  uint64_t n = detsim__events();
  struct detsim_world_pct *pp = W.pct_points;
  if (pp->next < pp->changes && n >= pp->change_at[pp->next]) {
    pct_lower(self, (int64_t)(pp->changes - pp->next));
    pp->next++;
  }
  if (++self->run_length > PCT_STARVATION_EVENTS) pct_lower(self, pp->lowest--);
  if (detsim__in_world) {
    struct choice c = detsim__sched_world_choose(NULL, true, true);
    if (c.thread != self && (c.thread || c.node >= 0)) detsim__sched_world_switch(self, c);
    return;
  }
  detsim_thread *cands[DETSIM_MAX_THREADS];
  unsigned c = detsim__sched_collect_runnable(cands, NULL);
  detsim_thread *best = cands[0];
  for (unsigned i = 1; i < c; i++)
    if (cands[i]->priority > best->priority) best = cands[i];
  if (best != self) detsim__plan_record(self->id, self->steps, DETSIM_PLAN_SWITCH, best->id);
  detsim__sched_switch_to(self, best);
}

/* A plan's yield point: switch only where the plan says (in a world, to
 * another process too). */
static void plan_step(detsim_thread *self) {
  int32_t pid;
  uint32_t id;
  if (!detsim__plan_take_any(self->id, self->steps, DETSIM_PLAN_SWITCH, &pid, &id)) return;
  if (pid != (int32_t)detsim__proc_pid()) {
    int node = detsim__in_world ? detsim__sched_world_node_of(pid) : -1;
    if (node < 0) return; /* not a process that can run now: passed over */
    detsim__plan_record_any(self->id, self->steps, DETSIM_PLAN_SWITCH, pid, 0);
    detsim__sched_world_switch(self, (struct choice){ NULL, node });
    return;
  }
  if (id == self->id) return;
  detsim_thread *cands[DETSIM_MAX_THREADS];
  unsigned n = detsim__sched_collect_runnable(cands, self);
  detsim_thread *next = find_candidate(cands, n, id);
  if (next == NULL) return;
  detsim__plan_record(self->id, self->steps, DETSIM_PLAN_SWITCH, id);
  detsim__sched_switch_to(self, next);
}

/* Yield points until the next preemption: drawn once per preemption from
 * the geometric distribution of the per-point probability, so a yield point
 * that does not switch costs a decrement, not a draw. */
static uint64_t seeded_gap(void) {
  if (W.preempt <= 0.0) return UINT64_MAX;
  if (W.preempt >= 1.0) return 1;
  double u = (double)((detsim__rng_next(&W.rng) >> 11) + 1) * 0x1.0p-53; /* in (0, 1] */
  double k = __builtin_ceil(__builtin_log(u) / __builtin_log1p(-W.preempt));
  if (k < 1.0) return 1;
  return k >= 1e18 ? UINT64_MAX : (uint64_t)k;
}

static uint64_t preempt_gap(void) {
  uint8_t b;
  if (__builtin_expect(detsim__choices_on, 0) && detsim__choices_next(&b)) return detsim_fuzz_gap(b);
  return seeded_gap();
}

/* A yield point that may switch: a plan or PCT decides at every one
 * (their countdown stays at 1); the random walk when its countdown ends. */
static __attribute__((noinline)) void preempt_slow(detsim_thread *self) {
  if (detsim__plan_replaying) {
    W.preempt_countdown = 1;
    plan_step(self);
    return;
  }
  if (W.pct) {
    W.preempt_countdown = 1;
    pct_step(self);
    return;
  }
  W.preempt_countdown = preempt_gap();
  if (detsim__in_world) {
    struct choice c = detsim__sched_world_choose(self, true, true);
    if (c.thread || c.node >= 0) detsim__sched_world_switch(self, c);
    return;
  }
  detsim_thread *cands[DETSIM_MAX_THREADS];
  unsigned n = detsim__sched_collect_runnable(cands, self);
  if (n == 0) return;
  detsim_thread *next = cands[detsim__sched_draw_below(n)];
  detsim__plan_record(self->id, self->steps, DETSIM_PLAN_SWITCH, next->id);
  detsim__sched_switch_to(self, next);
}

static inline void preempt_point(detsim_thread *self) {
  if (__builtin_expect(--W.preempt_countdown != 0, 1)) return;
  preempt_slow(self);
}

/* Asynchronous cancellation acts at the next yield point (out of line: a
 * yield point's fast path only tests whether a request is pending). */
static __attribute__((noinline, cold)) void cancel_at_yield(detsim_thread *self) {
  if (self->cancel_async && detsim__cancel_due(self)) detsim__cancel_act();
}

void detsim__yield_aux(enum detsim_event_kind kind, const void *obj, uintptr_t pc, uint32_t aux) {
  detsim_thread *self = detsim__tls_self;
  if (self == NULL || self->suppress) return;
  detsim__event(kind, self, obj, pc, aux);
  self->site_pc = pc;
  self->site_step = self->steps;
  preempt_point(self);
  if (__builtin_expect(self->cancel_pending, 0)) cancel_at_yield(self);
  if (__builtin_expect(detsim__rt_ever, 0)) detsim__sched_rt_point(self);
  detsim__sig_deliver_due(self);
}

void detsim__sched_rt_point(detsim_thread *self) {
  /* A world's choices span nodes (other machines): priorities order the
   * threads within a node's candidates only.  The switch is forced, so a
   * plan replays it too: pick() takes the plan's choice among them. */
  if (self == NULL || self->suppress || detsim__in_world) return;
  detsim_thread *cands[DETSIM_MAX_THREADS];
  unsigned n = detsim__sched_collect_runnable(cands, self);
  if (n == 0 || detsim__machine_rt_priority(cands[0]) <= detsim__machine_rt_priority(self)) return;
  detsim__sched_switch_to(self, pick(cands, n));
}

void detsim__yield_at(enum detsim_event_kind kind, const void *obj, uintptr_t pc) {
  detsim__yield_aux(kind, obj, pc, 0);
}

/* sched_yield: prefer another runnable thread. */
void detsim__yield_to_other(uintptr_t pc) {
  detsim_thread *self = detsim__tls_self;
  if (self == NULL || self->suppress) return;
  detsim__event(DETSIM_EV_yield, self, NULL, pc, 0);
  if (detsim__in_world) {
    struct choice c = detsim__sched_world_choose(self, true, false);
    if (c.thread || c.node >= 0) {
      if (W.pct) pct_lower(self, W.pct_points->lowest--);
      detsim__sched_world_switch(self, c);
    }
  } else {
    detsim_thread *cands[DETSIM_MAX_THREADS];
    unsigned n = detsim__sched_collect_runnable(cands, self);
    if (n > 0) {
      if (W.pct) pct_lower(self, W.pct_points->lowest--);
      detsim__sched_switch_to(self, pick(cands, n));
    }
  }
  if (__builtin_expect(self->cancel_pending, 0)) cancel_at_yield(self);
  detsim__sig_deliver_due(self);
}

/* ---- blocking ---- */

/* One wait of detsim__block: blocks until ready, the deadline, or a signal
 * this thread must take.  Returns 0, ETIMEDOUT, or EINTR (a signal). */
static int block_once(detsim_thread *self, enum detsim_event_kind kind, const void *obj, bool (*ready)(void *arg),
                      uint64_t (*next)(void *arg), void *arg, uint64_t deadline_ns, uintptr_t caller) {
  /* Where the program called: an interceptor yields (with the program's
   * call site) before it blocks, so when this thread has had no event since
   * its last yield point, that site is this call's; a wait that blocks
   * again on the same object (a network wait re-checking) keeps the site it
   * had; otherwise the caller of this function is the best there is. */
  bool fresh = self->site_step == self->steps && self->site_pc;
  self->block_pc = fresh ? self->site_pc : obj != NULL && obj == self->block_obj && self->block_pc ? self->block_pc : caller;
  self->state = DETSIM_T_BLOCKED;
  self->block_kind = kind;
  self->block_obj = obj;
  self->ready = ready;
  self->ready_arg = arg;
  self->until = deadline_ns;
  self->next = next;
  self->deadline = next ? detsim__sched_follow_deadline(self) : deadline_ns;
  detsim__event(DETSIM_EV_block, self, obj, self->block_pc, kind);
  if (detsim__in_world) {
    detsim__sched_world_switch(self, detsim__sched_world_choose_when_stuck(self, NULL, true));
  } else {
    detsim_thread *cands[DETSIM_MAX_THREADS];
    unsigned n = detsim__sched_collect_runnable(cands, NULL);
    detsim__sched_switch_to(self, n ? pick(cands, n) : pick_when_stuck(self, NULL));
  }
  bool ok = ready(arg);
  bool late = detsim__now_ns() >= self->deadline;
  CHECK(ok || late || detsim__sig_deliverable(self) || (self->block_cancelable && detsim__cancel_due(self)));
  self->state = DETSIM_T_RUNNABLE;
  self->ready = NULL;
  self->next = NULL;
  detsim__event(ok || !late ? DETSIM_EV_wake : DETSIM_EV_timeout, self, obj, self->block_pc, kind);
  return ok ? 0 : late ? ETIMEDOUT : EINTR;
}

/* Blocks as detsim__block describes; a signal that arrives meanwhile is
 * delivered here.  An interruptible wait then returns EINTR if a handler
 * ran (self->sig_restart: every such handler had SA_RESTART); any other
 * wait goes on waiting, as a futex wait restarts after a handler. */
static int block_loop(detsim_thread *self, enum detsim_event_kind kind, const void *obj, bool (*ready)(void *arg),
                      uint64_t (*next)(void *arg), void *arg, uint64_t deadline_ns, bool interruptible,
                      uintptr_t caller) {
  for (;;) {
    /* A clock step since the last look moved an absolute realtime time. */
    if (self->rt_abs) deadline_ns = detsim__deadline_of_abs_ns(self->rt_clock, self->rt_abs_ns);
    if (ready(arg)) return 0;
    if (deadline_ns <= detsim__now_ns()) return ETIMEDOUT;
    if (self->block_cancelable && detsim__cancel_due(self)) {
      /* A cancellation point's wait ends; its call acts as it returns
       * (an interruptible wait takes the EINTR path, which never restarts). */
      self->cancel_cut = true;
      self->sig_restart = false;
      return interruptible ? EINTR : ECANCELED;
    }
    if (detsim__sig_maybe(self) && detsim__sig_deliverable(self)) {
      unsigned d = detsim__sig_deliver(self);
      if (interruptible && (d & DETSIM_SIG_HANDLED)) {
        self->sig_restart = (d & DETSIM_SIG_RESTART) != 0;
        return EINTR;
      }
      continue;
    }
    int r = block_once(self, kind, obj, ready, next, arg, deadline_ns, caller);
    if (r != EINTR) return r;
  }
}

static int block_on(enum detsim_event_kind kind, const void *obj, bool (*ready)(void *arg),
                    uint64_t (*next)(void *arg), void *arg, uint64_t deadline_ns, bool interruptible,
                    uintptr_t caller) {
  detsim_thread *self = detsim__tls_self;
  CHECK(self != NULL);
  CHECK_EQ(self->state, DETSIM_T_RUNNABLE);
  self->rt_abs = detsim__clock_take_abs(deadline_ns, &self->rt_clock, &self->rt_abs_ns);
  /* Whether a cancel request ends this wait: an interruptible one inside a
   * cancellation point, or a plain one that asked (cancel_wait).  Saved, as
   * a signal handler run from this wait may wait itself. */
  bool saved_cancelable = self->block_cancelable;
  self->block_cancelable = interruptible ? self->cancel_point > 0 : self->cancel_wait;
  self->cancel_wait = false;
  int r = block_loop(self, kind, obj, ready, next, arg, deadline_ns, interruptible, caller);
  self->rt_abs = false;
  self->block_cancelable = saved_cancelable;
  return r;
}


int detsim__block(enum detsim_event_kind kind, const void *obj,
                  bool (*ready)(void *arg), void *arg, uint64_t deadline_ns) {
  return block_on(kind, obj, ready, NULL, arg, deadline_ns, false, (uintptr_t)__builtin_return_address(0));
}

int detsim__block_intr(enum detsim_event_kind kind, const void *obj,
                       bool (*ready)(void *arg), void *arg, uint64_t deadline_ns) {
  return block_on(kind, obj, ready, NULL, arg, deadline_ns, true, (uintptr_t)__builtin_return_address(0));
}

int detsim__block_follow(enum detsim_event_kind kind, const void *obj, bool (*ready)(void *arg),
                         uint64_t (*next)(void *arg), void *arg, uint64_t until) {
  CHECK(next != NULL);
  return block_on(kind, obj, ready, next, arg, until, true, (uintptr_t)__builtin_return_address(0));
}

bool detsim__restartable(void) { return detsim__tls_self != NULL && detsim__tls_self->sig_restart; }

static bool woken_ready(void *arg) { return ((detsim_thread *)arg)->woken; }

int detsim__wait(enum detsim_event_kind kind, const void *obj, uint64_t deadline_ns) {
  detsim_thread *self = detsim__tls_self;
  CHECK(self != NULL);
  self->woken = false;
  self->waiting = true;
  int r = detsim__block(kind, obj, woken_ready, self, deadline_ns);
  self->waiting = false;
  return r;
}

int detsim__wait_cancelable(enum detsim_event_kind kind, const void *obj, uint64_t deadline_ns) {
  detsim_thread *self = detsim__tls_self;
  CHECK(self != NULL);
  self->cancel_wait = self->cancel_point > 0;
  return detsim__wait(kind, obj, deadline_ns);
}

static bool is_waiter_on(detsim_thread *t, const void *obj) {
  return t->state == DETSIM_T_BLOCKED && t->waiting && t->block_obj == obj &&
         !__atomic_load_n(&t->woken, __ATOMIC_RELAXED);
}

detsim_thread *detsim__choose_waiter(detsim_thread **cands, unsigned n) {
  CHECK(detsim__tls_self != NULL);
  CHECK_GE(n, 1);
  detsim_thread *me = detsim__tls_self;
  detsim_thread *t = cands[0];
  if (detsim__plan_replaying) {
    detsim_thread *planned = find_candidate(cands, n, detsim__plan_take(me->id, me->steps, DETSIM_PLAN_WAKE));
    if (planned) t = planned;
  } else {
    t = cands[detsim__sched_draw_below(n)];
  }
  if (t != cands[0]) detsim__plan_record(me->id, me->steps, DETSIM_PLAN_WAKE, t->id);
  return t;
}

int detsim__wake_one(const void *obj) {
  if (detsim__tls_self == NULL) return detsim__wake_all(obj); /* outside: no draws */
  detsim_thread *cands[DETSIM_MAX_THREADS];
  unsigned n = 0;
  for (unsigned i = 0; i < W.slots_used; i++)
    if (is_waiter_on(&W.threads[i], obj)) cands[n++] = &W.threads[i];
  if (n == 0) return 0;
  detsim__choose_waiter(cands, n)->woken = true;
  return 1;
}

int detsim__wake_all(const void *obj) {
  int n = 0;
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (is_waiter_on(t, obj)) {
      __atomic_store_n(&t->woken, true, __ATOMIC_RELAXED);
      n++;
    }
  }
  return n;
}

unsigned detsim__sched_blocked_on(const void *obj, bool (*ready)(void *arg), detsim_thread **out) {
  unsigned n = 0;
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t->state == DETSIM_T_BLOCKED && t->block_obj == obj && t->ready == ready && !ready(t->ready_arg))
      out[n++] = t;
  }
  return n;
}

/* ---- threads ---- */

detsim_thread *detsim__thread_by_id(uint32_t id) {
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if ((t->state == DETSIM_T_RUNNABLE || t->state == DETSIM_T_BLOCKED) && t->id == id) return t;
  }
  return NULL;
}

detsim_thread *detsim__thread_of_tid(pid_t tid) {
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if ((t->state == DETSIM_T_RUNNABLE || t->state == DETSIM_T_BLOCKED) && t->tid == tid) return t;
  }
  return NULL;
}

pthread_t detsim__thread_pthread(const detsim_thread *t) { return t->pthread; }

unsigned detsim__live_threads(void) { return W.live; }

static detsim_thread *find_thread(pthread_t pt) {
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t->state != DETSIM_T_FREE && pthread_equal(t->pthread, pt)) return t;
  }
  return NULL;
}

detsim_thread *detsim__thread_find(pthread_t thread) { return find_thread(thread); }

detsim_thread *detsim__thread_of(pthread_t pt) {
  detsim_thread *t = find_thread(pt);
  return t != NULL && (t->state == DETSIM_T_RUNNABLE || t->state == DETSIM_T_BLOCKED) ? t : NULL;
}

static detsim_thread *alloc_slot(void) {
  for (unsigned i = 0; i < W.slots_used; i++)
    if (W.threads[i].state == DETSIM_T_FREE) return &W.threads[i];
  if (W.slots_used < DETSIM_MAX_THREADS) return &W.threads[W.slots_used++];
  return NULL;
}

static void mark_exit_key(detsim_thread *t);

static void *trampoline(void *arg) {
  detsim_thread *t = arg;
  detsim__tls_self = t;
  detsim__altstack_install();
  /* Before any code of the program: the net is per thread. */
  detsim__trap_thread_start();
  detsim__sched_wait_baton(t);
  mark_exit_key(t);
  detsim__event(DETSIM_EV_thread_start, t, NULL, (uintptr_t)t->start, 0);
  void *ret = t->start(t->arg);
  /* Thread-specific data destructors run next, as this simulated thread;
   * the last round of them finishes it (exit_key_destructor). */
  t->retval = ret;
  t->exiting = true;
  return ret;
}

static void limit_reached(const char *name, uint64_t value, const char *why) {
  char extra[96];
  snprintf(extra, sizeof extra, "limit=%s=%" PRIu64, name, value);
  detsim__msg("the run reached the limit %s=%" PRIu64 ": %s", name, value, why);
  detsim__finish(DETSIM_CLASS_inconclusive, 0, extra);
}

int detsim__thread_create(pthread_t *out, const pthread_attr_t *attr,
                          void *(*start)(void *), void *arg) {
  detsim_thread *self = detsim__tls_self;
  /* Not simulated (a forked child, before the start): still through the
   * sanitizer, which must know every thread. */
  if (self == NULL) return detsim__os_thread_create(out, attr, start, arg);
  detsim__tsan_thread_after_fork();
  if (W.live >= detsim__opt.max_threads)
    limit_reached("max_threads", detsim__opt.max_threads, "too many simulated threads alive at once");
  if (W.next_id > DETSIM_MAX_THREADS_CREATED)
    limit_reached("max_threads_created", DETSIM_MAX_THREADS_CREATED, "too many threads created in one run");
  detsim_thread *t = alloc_slot();
  if (t == NULL) limit_reached("max_threads", DETSIM_MAX_THREADS, "no free thread slot");
  memset(t, 0, sizeof *t);
  init_baton(t);
  detsim__sig_thread_init(t, self);
  detsim__machine_thread_init(t, self, attr);
  t->id = W.next_id++;
  t->tid = detsim__proc_alloc(); /* the world's next id, as Linux numbers threads */
  t->state = DETSIM_T_RUNNABLE;
  t->start = start;
  t->arg = arg;
  t->priority = W.pct ? pct_new_priority() : 0;
  int detach = PTHREAD_CREATE_JOINABLE;
  if (attr) pthread_attr_getdetachstate(attr, &detach);
  t->detached = detach == PTHREAD_CREATE_DETACHED;
  int r = detsim__os_thread_create(&t->pthread, attr, trampoline, t);
  if (r != 0) {
    t->state = DETSIM_T_FREE;
    return r;
  }
  W.live++;
  *out = t->pthread;
  detsim__event(DETSIM_EV_thread_create, self, NULL, (uintptr_t)__builtin_return_address(0), t->id);
  if (!detsim__in_sanitizer_interceptor()) preempt_point(self);
  return 0;
}

static bool finished_ready(void *arg) { return ((detsim_thread *)arg)->state == DETSIM_T_FINISHED; }

int detsim__thread_join(pthread_t thread, void **retval, bool try_only, uint64_t deadline_ns) {
  detsim_thread *self = detsim__tls_self;
  if (self == NULL) return detsim__os_thread_join(thread, retval);
  detsim__yield(DETSIM_EV_thread_join, NULL);
  detsim_thread *t = find_thread(thread);
  if (t == NULL) return ESRCH;
  if (t == self) return EDEADLK;
  if (t->detached) return EINVAL;
  if (t->joiner != NULL && t->joiner != self) return EINVAL;
  if (try_only && t->state != DETSIM_T_FINISHED) return EBUSY;
  t->joiner = self;
  /* A join is a cancellation point: canceled, it leaves t joinable. */
  self->cancel_wait = !try_only && self->cancel_point > 0;
  int r = detsim__block(DETSIM_EV_thread_join, t, finished_ready, t, deadline_ns);
  if (r != 0) t->joiner = NULL;
  if (r == ECANCELED) detsim__cancel_act();
  if (r == ETIMEDOUT) return ETIMEDOUT;
  CHECK_EQ(r, 0);
  if (retval) *retval = t->retval;
  /* Reap the OS thread; its real exit path may still be running. */
  detsim__os_thread_join(t->pthread, NULL);
  t->state = DETSIM_T_FREE;
  return 0;
}

int detsim__thread_detach(pthread_t thread) {
  detsim_thread *self = detsim__tls_self;
  if (self == NULL) return detsim__os_thread_detach(thread);
  detsim__yield(DETSIM_EV_thread_detach, NULL);
  detsim_thread *t = find_thread(thread);
  if (t == NULL) return ESRCH;
  if (t->detached) return EINVAL;
  t->detached = true;
  int r = detsim__os_thread_detach(t->pthread);
  if (t->state == DETSIM_T_FINISHED) t->state = DETSIM_T_FREE;
  return r;
}

/* The thread's simulated life ends here, after its cleanup handlers and
 * thread-specific data destructors; the rest of its real exit runs
 * afterwards outside the simulation, while the next thread runs. */
static void finish_thread(detsim_thread *self) {
  /* As the kernel at a thread's exit: its robust mutexes' owner died. */
  if (self->robust_held != NULL) detsim__mutex_robust_owner_died(self);
  detsim__event(DETSIM_EV_thread_exit, self, NULL, 0, 0);
  self->state = self->detached ? DETSIM_T_FREE : DETSIM_T_FINISHED;
  /* The last thread does not finish: it ends the process (end_process). */
  CHECK_GE(W.live, 2);
  W.live--;
  if (detsim__in_world) {
    struct choice c = detsim__sched_world_choose_when_stuck(self, self, true);
    detsim__tls_self = NULL;
    if (c.thread) {
      detsim__trace_event(DETSIM_EV_switch, self->id, NULL, 0, c.thread->id);
      detsim__sched_give_baton(c.thread);
    } else {
      detsim__sched_leave_for(self, (unsigned)c.node);
    }
    return;
  }
  detsim_thread *next = pick_when_stuck(self, self);
  detsim__trace_event(DETSIM_EV_switch, self->id, NULL, 0, next->id);
  detsim__tls_self = NULL;
  detsim__sched_give_baton(next);
}

/* ---- the end of a thread ----
 *
 * A thread's simulated life lasts until its real exit has run the program's
 * code: pthread_exit (and a cancel) unwinds for real, running the cleanup
 * handlers (pthread_cleanup_push) in the thread, then glibc runs the
 * thread-specific data destructors, for pthread_exit and for a start routine
 * that returned alike.  The runtime's own key is set in every simulated
 * thread; its destructor re-arms itself so that glibc makes every round it
 * may make (PTHREAD_DESTRUCTOR_ITERATIONS), and finishes the simulated
 * thread in the last one.  So handlers and destructors that lock, sleep or
 * signal do it as the simulated thread, at yield points.  (A destructor
 * whose key comes after the runtime's, set again by destructors in each of
 * the earlier rounds, would run outside the simulation: glibc's last round.)
 */

/* glibc's PTHREAD_DESTRUCTOR_ITERATIONS. */
#define TSD_ROUNDS 4
#ifdef PTHREAD_DESTRUCTOR_ITERATIONS
_Static_assert(PTHREAD_DESTRUCTOR_ITERATIONS == TSD_ROUNDS, "glibc's destructor rounds");
#endif

static pthread_key_t exit_key;

static void mark_exit_key(detsim_thread *t) {
  int r = pthread_setspecific(exit_key, t);
  CHECK_EQ(r, 0); /* the key exists from the start: setting it only stores */
}

/* The last simulated thread ends: its process ends as glibc ends it when the
 * last thread exits, with exit(0) (atexit handlers, stdio flushed), run as
 * this thread.  This happens only after main called pthread_exit. */
_Noreturn static void end_process(detsim_thread *self) {
  CHECK_EQ(W.live, 1);
  detsim__event(DETSIM_EV_thread_exit, self, NULL, 0, 0);
  exit(0);
}

/* ThreadSanitizer's key (made before any of ours) destroys the thread's
 * TSan state in glibc's last round, before our destructor runs in it; the
 * thread's end (in a world: the choices it makes when nothing else can
 * run, the faults they bring) calls into TSan, which crashes on a
 * destroyed state.  Under TSan the thread ends one round earlier, so the
 * remark above holds there for a key set again in the two earlier rounds. */
extern void __tsan_init(void) __attribute__((weak));

static unsigned tsd_finish_round(void) { return __tsan_init ? TSD_ROUNDS - 1 : TSD_ROUNDS; }

static void exit_key_destructor(void *value) {
  detsim_thread *t = value;
  if (t == NULL || t != detsim__tls_self || !W.running) return;
  if (++t->tsd_rounds < tsd_finish_round()) {
    mark_exit_key(t);
    return;
  }
  t->exiting = true; /* whatever way it left: no cancel acts from now on */
  if (W.live == 1) end_process(t);
  finish_thread(t);
}

_Noreturn void detsim__thread_exit(void *retval) {
  detsim_thread *self = detsim__tls_self;
  if (self != NULL && !self->exiting) {
    self->retval = retval;
    self->exiting = true;
  }
  REAL(pthread_exit)(retval);
}

/* ---- deadlock ---- */

_Noreturn void detsim__deadlock(detsim_thread *self) {
  /* Lend the baton to each blocked thread in turn so it records where it
   * blocks; then report every live thread. */
  W.reporter = self;
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t == self || t->state != DETSIM_T_BLOCKED) continue;
    t->report_request = true;
    __atomic_store_n(self->baton, 0, __ATOMIC_RELAXED);
    detsim__sched_give_baton(t);
    while (__atomic_load_n(self->baton, __ATOMIC_ACQUIRE) == 0) futex_wait(self->baton, 0);
  }
  W.current = self;
  if (self->state == DETSIM_T_BLOCKED) detsim__backtrace_text(self->where, sizeof self->where, 1);
  unsigned blocked = 0;
  for (unsigned i = 0; i < W.slots_used; i++)
    if (W.threads[i].state == DETSIM_T_BLOCKED) blocked++;
  detsim__msg("deadlock: all %u live threads are blocked and no timer is pending", blocked);
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t->state != DETSIM_T_BLOCKED) continue;
    if (t->block_kind == DETSIM_EV_thread_join)
      detsim__msg("  thread T%u waits in thread_join for thread T%u", t->id, ((const detsim_thread *)t->block_obj)->id);
    else
      detsim__msg("  thread T%u waits in %s on %p", t->id, detsim__event_name(t->block_kind), t->block_obj);
    if (t->block_kind == DETSIM_EV_mutex_lock || t->block_kind == DETSIM_EV_mutex_trylock) {
      uint32_t owner = detsim__mutex_owner_hint(t->block_obj);
      if (owner) detsim__msg("    (held by thread T%u)", owner);
    }
    if (t->where[0]) {
      char *line = t->where;
      while (*line) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        detsim__msg("    %s", line);
        if (!nl) break;
        line = nl + 1;
      }
    }
  }
  detsim__finish(DETSIM_CLASS_deadlock, 0, NULL);
}

__attribute__((weak)) uint32_t detsim__mutex_owner_hint(const void *mutex) {
  (void)mutex;
  return 0;
}

/* ---- start ---- */

void detsim__sched_start(uint64_t seed) {
  W.seed = seed;
  char label[64];
  /* Each node of a world (each incarnation) draws its own choices. */
  detsim__world_label(label, sizeof label, "scheduler");
  detsim__rng_init(&W.rng, detsim__seed_child(seed, label));
  W.pct = strcmp(detsim__opt.strategy, "pct") == 0 && !detsim__plan_replaying && !detsim__choices_on;
  double p = detsim__opt.preempt;
  if (p < 0) {
    struct detsim_rng swarm;
    detsim__rng_init(&swarm, detsim__seed_child(seed, "scheduler/swarm"));
    /* log-uniform in [0.001, 0.5]: each seed explores its own switch rate */
    p = 0.001 * __builtin_exp(detsim__rng_unit(&swarm) * __builtin_log(500.0));
  }
  W.preempt = p;
  W.preempt_countdown = detsim__plan_replaying || W.pct ? 1 : preempt_gap();
  W.pct_points = &W.pct_own;
  if (W.pct && detsim__in_world && detsim__ws->pct.on) {
    /* An exec's new image in a run's own world: the world's change points. */
    W.pct_points = &detsim__ws->pct;
  } else if (W.pct) {
    struct detsim_world_pct *pp = &W.pct_own;
    pp->changes = (unsigned)detsim__opt.pct_depth - 1;
    uint64_t steps = detsim__opt.pct_steps;
    if (steps == 0) {
      /* PCT's guarantee needs change points spread over the run's real
       * length, which is unknown before it runs: each seed draws its own. */
      struct detsim_rng swarm;
      detsim__rng_init(&swarm, detsim__seed_child(seed, "scheduler/pct"));
      steps = (uint64_t)(64.0 * __builtin_exp(detsim__rng_unit(&swarm) * __builtin_log(16384.0)));
    }
    W.pct_steps = steps;
    for (unsigned i = 0; i < pp->changes; i++)
      pp->change_at[i] = 1 + detsim__rng_below(&W.rng, steps);
    /* sorted, so the scheduler meets them in order */
    for (unsigned i = 1; i < pp->changes; i++)
      for (unsigned j = i; j > 0 && pp->change_at[j - 1] > pp->change_at[j]; j--) {
        uint64_t x = pp->change_at[j];
        pp->change_at[j] = pp->change_at[j - 1];
        pp->change_at[j - 1] = x;
      }
    pp->lowest = 0;
  }
  W.max_sim_time_ns = detsim__opt.max_sim_time_s * 1000000000ull;
  W.time_stop = W.max_sim_time_ns;
  W.break_at = detsim__opt.break_at ? detsim__opt.break_at : UINT64_MAX;
  W.event_stop = detsim__opt.max_events < W.break_at ? detsim__opt.max_events : W.break_at;
  W.next_id = 1;
  detsim_thread *main_thread = &W.threads[W.slots_used++];
  memset(main_thread, 0, sizeof *main_thread);
  main_thread->id = W.next_id++;
  main_thread->state = DETSIM_T_RUNNABLE;
  main_thread->pthread = pthread_self();
  main_thread->tid = detsim__proc_pid(); /* a main thread's tid is its pid */
  if (detsim__in_world) futex_private = 0;
  init_baton(main_thread);
  *main_thread->baton = DETSIM_BATON_RUN;
  main_thread->priority = W.pct ? pct_new_priority() : 0;
  W.live = 1;
  W.current = main_thread;
  detsim__tls_self = main_thread;
  int kr = pthread_key_create(&exit_key, exit_key_destructor);
  CHECK_EQ(kr, 0); /* made before the program runs: keys are not used up yet */
  mark_exit_key(main_thread);
  W.running = true;
  if (detsim__in_world) {
    /* The node's program starts when the world first comes to it. */
    *main_thread->baton = 0;
    W.current = NULL;
    detsim__world_park_main();
    detsim__sched_wait_baton(main_thread);
  }
  detsim__event(DETSIM_EV_start, main_thread, NULL, 0, 0);
}

/* After a fork outside the simulation the child has one thread and no
 * watchdog: it leaves the simulation (its calls act on objects without
 * scheduling). */
void detsim__sched_forget_in_child(void) {
  detsim__tls_self = NULL;
  W.running = false;
}

/* The run's first fork makes it a world (world_proc.c): every thread's
 * baton word moves to this process's words in the shared region, and the
 * futexes become shared.  A thread waiting on its old word is told so
 * (DETSIM_BATON_MOVED, then a private wake: the value changed before the
 * wake, so a thread about to wait sees it) and waits on the new one. */
void detsim__sched_become_world(void) {
  detsim_thread *self = detsim__tls_self;
  CHECK(self != NULL);
  CHECK(W.current == self);
  futex_private = 0;
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    uint32_t *old = t->baton;
    if (old == NULL) continue;
    uint32_t *word = detsim__world_baton(i);
    __atomic_store_n(word, __atomic_load_n(old, __ATOMIC_ACQUIRE), __ATOMIC_RELAXED);
    __atomic_store_n(&t->baton, word, __ATOMIC_RELEASE);
    if (t == self) continue;
    __atomic_store_n(old, DETSIM_BATON_MOVED, __ATOMIC_RELEASE);
    REAL(syscall)(SYS_futex, old, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  }
}

/* The child's first preemption gap from the choices bytes (0: none), and
 * its thread's priority under PCT. */
static uint64_t fork_child_gap;
static int64_t fork_child_priority;

void detsim__sched_fork_prepare(void) {
  uint8_t b;
  fork_child_gap = detsim__choices_on && detsim__choices_next(&b) ? detsim_fuzz_gap(b) : 0;
  fork_child_priority = W.pct ? pct_new_priority() : 0;
}

int64_t detsim__sched_fork_child_priority(void) { return fork_child_priority; }

/* The child of a simulated fork, before its program goes on: it has one
 * thread, the one that forked (its slot and id stay); it draws from its
 * own streams, and its baton words are its own slot's in the world. */
void detsim__sched_fork_child(void) {
  detsim_thread *self = detsim__tls_self;
  CHECK(self != NULL);
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t == self) continue;
    /* Their real threads do not exist here; a mutex one of them held stays
     * held, as in Linux. */
    t->state = DETSIM_T_FREE;
    t->baton = NULL;
  }
  W.live = 1;
  W.current = NULL;
  self->joiner = NULL;
  self->sig_pending = 0;
  /* As glibc's child: its robust list starts empty (a process-shared one
   * the parent holds stays the parent's). */
  self->robust_held = NULL;
  self->tid = detsim__proc_pid(); /* its only thread is its main thread */
  self->pthread = pthread_self();
  char label[64];
  detsim__world_label(label, sizeof label, "scheduler");
  detsim__rng_init(&W.rng, detsim__seed_child(W.seed, label));
  /* A gap its parent took from the choices bytes, else its own stream's
   * (this process draws nothing shared before it first holds the world). */
  W.preempt_countdown = W.pct || detsim__plan_replaying ? 1 : fork_child_gap ? fork_child_gap : seeded_gap();
  /* A new process's thread under PCT: a priority drawn as a new thread's. */
  self->priority = fork_child_priority;
  self->run_length = 0;
  /* Not cleared: the parent cleared it before the fork, and the world may
   * already have come here through it. */
  self->baton = detsim__world_baton((unsigned)(self - W.threads));
}

bool detsim__sched_pct(void) { return W.pct; }
