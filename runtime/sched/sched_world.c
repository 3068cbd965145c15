/* The scheduler's choices in a world (world.h): over this node's runnable
 * threads and the other nodes that may have something to run, drawn
 * uniformly from the seed (in choice mode from the world's choices bytes),
 * in a run's own world also by PCT's priorities or a schedule plan's
 * entries; when nothing anywhere can run, time jumps to the earliest deadline of any
 * node.  How the world comes to a node and leaves
 * it (the guessed thread, the dispatcher), and a node's exit, crash and
 * clock steps.  The rest of the scheduler is sched.c.
 */
#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>

#include "core/core.h"
#include "time/time.h"
#include "net/net.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "signal/signal.h"
#include "trace/trace.h"
#include "world/world.h"

/* Which thread of this node is likely to run first when the world comes
 * back for this node's own reasons: the first that can run, else the one
 * whose deadline comes first, else any that waits for its baton. */
static int32_t guess_first(detsim_thread *first_runnable) {
  if (first_runnable) return (int32_t)(first_runnable - W.threads);
  detsim_thread *best = NULL;
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t->state == DETSIM_T_BLOCKED && (best == NULL || t->deadline < best->deadline)) best = t;
  }
  return best ? (int32_t)(best - W.threads) : DETSIM_WORLD_NO_SLOT;
}

bool detsim__sched_slot_waits(unsigned slot) {
  return slot < W.slots_used && (W.threads[slot].state == DETSIM_T_RUNNABLE || W.threads[slot].state == DETSIM_T_BLOCKED);
}

/* The world leaves this node for `node`; `idle`: nothing here can run;
 * `first`: the first thread here that can run (NULL: none). */
static void hand_over(detsim_thread *self, unsigned node, bool idle, detsim_thread *first) {
  /* The choice is made: a fault due in these events (a crash of `node`)
   * waits for the next node's dispatch, at the same virtual time. */
  detsim__world_faults_held = true;
  detsim__event(DETSIM_EV_node_switch, self, NULL, 0, node);
  if (idle) detsim__event(DETSIM_EV_node_idle, self, NULL, 0, detsim__node_index);
  detsim__world_faults_held = false;
  if (self) {
    self->run_length = 0;
    __atomic_store_n(self->baton, 0, __ATOMIC_RELAXED);
  }
  /* PCT: what this process offers the world's next choices (one that
   * ended offers nothing: its waits' objects may be gone). */
  struct detsim_world_node *me = &detsim__ws->nodes[detsim__node_index];
  if (W.pct && __atomic_load_n(&me->state, __ATOMIC_ACQUIRE) == DETSIM_NODE_READY)
    me->pct_top = detsim__sched_pct_top(idle);
  W.current = NULL;
  detsim__world_hand_to(node, idle, idle ? detsim__sched_next_deadline() : DETSIM_NO_DEADLINE, guess_first(first));
}

/* The world leaves this node for `node`.  `self` (NULL for the dispatcher)
 * then waits for its baton, or leaves. */
void detsim__sched_leave_for(detsim_thread *self, unsigned node) {
  detsim_thread *cands[DETSIM_MAX_THREADS];
  bool idle = detsim__sched_collect_runnable(cands, NULL) == 0;
  hand_over(self, node, idle, idle ? NULL : cands[0]);
}

_Noreturn static void world_deadlock(detsim_thread *self);

/* PCT over the world (a run's own, whose processes all run under it): the
 * highest priority of this process's runnable threads and of what the
 * other processes offered when they last handed the world over; a tie
 * goes to this process, then to the lowest slot.  A process that offered
 * more than it finds runnable when the world comes (what its thread
 * waited for was taken meanwhile) offers anew as it hands the world on,
 * so the choices settle. */
static struct choice pct_choose(detsim_thread **cands, unsigned nl, const unsigned *nodes, unsigned nr) {
  struct choice c = { NULL, -1 };
  int64_t best = INT64_MIN;
  for (unsigned i = 0; i < nl; i++)
    if (c.thread == NULL || cands[i]->priority > best) {
      c.thread = cands[i];
      best = cands[i]->priority;
    }
  for (unsigned i = 0; i < nr; i++) {
    int64_t p = detsim__ws->nodes[nodes[i]].pct_top;
    if ((c.thread == NULL && c.node < 0) || p > best) {
      c.thread = NULL;
      c.node = (int)nodes[i];
      best = p;
    }
  }
  return c;
}

int detsim__sched_world_node_of(int32_t pid) {
  unsigned nodes[DETSIM_WORLD_NODES_MAX];
  /* As every choice does first: an idle process whose time came may run. */
  detsim__world_wake_due(detsim__now_ns());
  unsigned nr = detsim__world_candidates(nodes);
  for (unsigned i = 0; i < nr; i++)
    if (detsim__ws->nodes[nodes[i]].vpid == pid) return (int)nodes[i];
  return -1;
}

/* What a plan names: a runnable thread of this process, or a candidate
 * process (its dispatcher then picks); none when it is neither now. */
static struct choice planned(detsim_thread **cands, unsigned nl, const unsigned *nodes, unsigned nr, int32_t pid,
                             uint32_t id) {
  struct choice c = { NULL, -1 };
  if (pid == (int32_t)detsim__proc_pid()) {
    for (unsigned i = 0; i < nl; i++)
      if (cands[i]->id == id) c.thread = cands[i];
    return c;
  }
  for (unsigned i = 0; i < nr; i++)
    if (detsim__ws->nodes[nodes[i]].vpid == pid) c.node = (int)nodes[i];
  return c;
}

/* The random walk's choice (in choice mode from the bytes). */
static struct choice drawn(detsim_thread **cands, unsigned nl, const unsigned *nodes, unsigned nr) {
  struct choice c = { NULL, -1 };
  uint64_t r = detsim__sched_draw_below(nl + nr);
  if (r < nl) c.thread = cands[r];
  else c.node = (int)nodes[r - nl];
  return c;
}

/* A choice while a schedule plan is replayed or recorded: keyed by the
 * deciding thread's step, or by the dispatcher's count (thread 0). */
static struct choice plan_choose(detsim_thread **cands, unsigned nl, const unsigned *nodes, unsigned nr,
                                 bool preempting) {
  detsim_thread *me = W.current;
  uint32_t who = me ? me->id : 0;
  uint64_t step = me ? me->steps : W.dispatch_steps++;
  struct choice first = { nl ? cands[0] : NULL, nl ? -1 : (int)nodes[0] };
  struct choice c = first;
  int32_t pid;
  uint32_t id;
  if (detsim__plan_replaying) {
    if (!preempting && detsim__plan_take_any(who, step, DETSIM_PLAN_SWITCH, &pid, &id)) {
      struct choice p = planned(cands, nl, nodes, nr, pid, id);
      if (p.thread || p.node >= 0) c = p;
    }
  } else {
    c = W.pct ? pct_choose(cands, nl, nodes, nr) : drawn(cands, nl, nodes, nr);
  }
  bool differs = preempting ? c.thread != me : c.thread != first.thread || c.node != first.node;
  if (differs && c.thread) detsim__plan_record(who, step, DETSIM_PLAN_SWITCH, c.thread->id);
  else if (differs) detsim__plan_record_any(who, step, DETSIM_PLAN_SWITCH, detsim__ws->nodes[c.node].vpid, 0);
  return c;
}

struct choice detsim__sched_world_choose(detsim_thread *exclude, bool local, bool preempting) {
  detsim_thread *cands[DETSIM_MAX_THREADS];
  unsigned nodes[DETSIM_WORLD_NODES_MAX];
  /* A paused node gives the world away at its next choice, and so does a
   * stopped process (proc_stop.c): none of its threads runs. */
  if (detsim__world_paused(detsim__node_index) || detsim__proc_is_stopped(detsim__node_index)) local = false;
  /* Another node's time may have come while this one ran, as a deadline
   * here makes its thread runnable at the next choice. */
  detsim__world_wake_due(detsim__now_ns());
  unsigned nl = local ? detsim__sched_collect_runnable(cands, exclude) : 0;
  unsigned nr = detsim__world_candidates(nodes);
  if (nl + nr == 0) return (struct choice){ NULL, -1 };
  if (__builtin_expect(detsim__plan_on(), 0)) return plan_choose(cands, nl, nodes, nr, preempting);
  return W.pct ? pct_choose(cands, nl, nodes, nr) : drawn(cands, nl, nodes, nr);
}

struct choice detsim__sched_world_choose_when_stuck(detsim_thread *self, detsim_thread *exclude, bool local) {
  for (;;) {
    struct choice c = detsim__sched_world_choose(exclude, local, false);
    if (c.thread || c.node >= 0) return c;
    bool paused = detsim__world_paused(detsim__node_index);
    bool stopped = detsim__proc_is_stopped(detsim__node_index);
    uint64_t d = local && !paused && !stopped ? detsim__sched_next_deadline() : DETSIM_NO_DEADLINE;
    uint64_t w = detsim__world_next_wake();
    if (w < d) d = w;
    uint64_t f = detsim__world_next_fault();
    if (f < d) d = f;
    if (local && paused && detsim__world_paused_until(detsim__node_index) < d)
      d = detsim__world_paused_until(detsim__node_index);
    if (d == DETSIM_NO_DEADLINE) world_deadlock(self);
    /* An idle node's time may have come while this one ran: no jump then. */
    if (d > detsim__now_ns()) {
      detsim__clock_advance_to(d);
      detsim__event(DETSIM_EV_time_jump, self, NULL, 0, 0);
    }
    detsim__world_wake_due(detsim__now_ns());
    detsim__world_faults_due();
  }
}

/* The world came to this node: what runs first.  The dispatcher's choice,
 * whichever thread makes it: its events belong to no thread. */
static struct choice dispatch_choice(void) {
  W.current = NULL;
  /* Other nodes sent this node something since it last looked. */
  int due_from;
  if (detsim__world_take_posts(&due_from)) W.times_stale = true;
  detsim__sched_clock_check();
  detsim__event(DETSIM_EV_node_enter, NULL, NULL, 0, detsim__node_index);
  detsim__world_take_signals();
  detsim__world_faults_due();
  detsim__sched_refresh_time_stop();
  /* A node the scenario holds until another listens came to the world only
   * because no other could take it: it passes the world on, its own threads
   * not yet begun (or, with no other node left to run, ends it). */
  bool held = detsim__ws->nodes[detsim__node_index].after1 != 0;
  struct choice c = detsim__sched_world_choose_when_stuck(NULL, NULL, !held);
  if (c.thread) detsim__world_learn_guess(due_from, (unsigned)(c.thread - W.threads));
  return c;
}

/* The dispatcher thread: the world came to this node when no thread of it
 * could be guessed to take it (its first entry, or no thread waited for
 * its baton when it left). */
void detsim__sched_dispatch(void) {
  struct choice c = dispatch_choice();
  if (c.thread) detsim__sched_give_baton(c.thread);
  else detsim__sched_leave_for(NULL, (unsigned)c.node);
}

/* The world came to this node through this thread's word, the guess of the
 * node that handed it over: it makes the dispatcher's choice (its events
 * belong to no thread, as the dispatcher's).  True when that is itself. */
bool detsim__sched_take_world(detsim_thread *self) {
  if (!detsim__world_enter()) return false;
  detsim__sched_set_self(NULL);
  struct choice c = dispatch_choice();
  detsim__sched_set_self(self);
  if (c.thread == self) {
    W.current = self;
    __atomic_store_n(self->baton, DETSIM_BATON_RUN, __ATOMIC_RELAXED);
    return true;
  }
  if (c.thread) detsim__sched_give_baton(c.thread);
  else detsim__sched_leave_for(NULL, (unsigned)c.node);
  return false;
}

/* The first other node that can take the world: a node leaving it gives
 * the world there, and that node's dispatcher makes the choices (a leaving
 * node must not: its own faults, deadlines and wait predicates are over). */
static unsigned first_ready_other(void) {
  unsigned next = DETSIM_WORLD_NODES_MAX;
  /* A node held until another listens only when no other is left (it
   * passes the world on, or ends it: dispatch_choice). */
  for (int held = 0; held < 2 && next == DETSIM_WORLD_NODES_MAX; held++)
    for (unsigned j = 0; j < detsim__ws->n_nodes && next == DETSIM_WORLD_NODES_MAX; j++)
      if (j != detsim__node_index && (detsim__ws->nodes[j].after1 != 0) == (held != 0) &&
          __atomic_load_n(&detsim__ws->nodes[j].state, __ATOMIC_ACQUIRE) == DETSIM_NODE_READY)
        next = j;
  /* Clients never crash nor stop, and the world ends when the last one
   * exits: a live client is always there. */
  CHECK_LT(next, detsim__ws->n_nodes);
  return next;
}

/* This node's process ends: the world goes on elsewhere. */
void detsim__sched_leave_node(void) {
  unsigned next = first_ready_other();
  detsim_thread *self = detsim__self();
  detsim__sched_set_self(NULL); /* its exit path runs outside the simulation */
  hand_over(self, next, false, NULL);
}

/* This node crashed while it held the world (world_lifecycle.c): the world
 * goes to another node, and this thread never runs again; the launcher
 * kills the process. */
_Noreturn void detsim__sched_crash_self(void) {
  unsigned next = first_ready_other();
  detsim_thread *self = detsim__self();
  detsim__sched_set_self(NULL);
  hand_over(self, next, false, NULL);
  detsim__world_release_crashed(detsim__host_index);
  static uint32_t never;
  for (;;) REAL(syscall)(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

/* Runs `c` after `self` (runnable or blocked) gave up the CPU. */
void detsim__sched_world_switch(detsim_thread *self, struct choice c) {
  if (c.thread) {
    detsim__sched_switch_to(self, c.thread);
    return;
  }
  detsim__sched_leave_for(self, (unsigned)c.node);
  detsim__sched_wait_baton(self);
  CHECK(W.current == self);
}

void detsim__world_print_blocked(void) {
  const struct detsim_world_node *me = &detsim__ws->nodes[detsim__node_index];
  /* A process forked on the node is named with its pid too. */
  char who[DETSIM_WORLD_NAME_BYTES + 16];
  if (me->host1) snprintf(who, sizeof who, "%.*s/%d", DETSIM_WORLD_NAME_BYTES, me->name, (int)me->vpid);
  else snprintf(who, sizeof who, "%.*s", DETSIM_WORLD_NAME_BYTES, me->name);
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t->state != DETSIM_T_BLOCKED) continue;
    detsim__msg("blocked: node %s: thread T%u waits in %s%s", who, t->id, detsim__event_name(t->block_kind),
                detsim__site_text(t->block_pc));
  }
}

_Noreturn static void world_deadlock(detsim_thread *self) {
  (void)self;
  unsigned waits_for;
  int held = detsim__world_held_node(&waits_for);
  if (held >= 0) {
    /* Not the program's deadlock: the scenario's start rule never let a
     * node run. */
    char extra[128];
    snprintf(extra, sizeof extra, "reason=never_listened held=%.*s waits_for=%.*s", DETSIM_WORLD_NAME_BYTES,
             detsim__ws->nodes[held].name, DETSIM_WORLD_NAME_BYTES, detsim__ws->nodes[waits_for].name);
    detsim__msg("error: node %.*s never started: it starts after %.*s listens, and %.*s never listened before the "
                "world could go no further",
                DETSIM_WORLD_NAME_BYTES, detsim__ws->nodes[held].name, DETSIM_WORLD_NAME_BYTES,
                detsim__ws->nodes[waits_for].name, DETSIM_WORLD_NAME_BYTES, detsim__ws->nodes[waits_for].name);
    detsim__finish(DETSIM_CLASS_deadlock, 0, extra);
  }
  detsim__msg("deadlock: no thread of any node of the world can run, and no timer is pending");
  /* The other nodes list theirs when the launcher asks (world.c). */
  detsim__world_print_blocked();
  /* A stopped process is named: the world waits for its SIGCONT. */
  char stopped[256];
  detsim__proc_report_stopped(stopped, sizeof stopped);
  /* The result line names the node (report.c adds node= in a world). */
  detsim__finish(DETSIM_CLASS_deadlock, 0, stopped[0] ? stopped : NULL);
}


void detsim__sched_clock_check(void) {
  int64_t delta = detsim__clock_take_step();
  if (delta == 0) return;
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t->state != DETSIM_T_BLOCKED || !t->rt_abs) continue;
    t->until = detsim__deadline_of_abs_ns(t->rt_clock, t->rt_abs_ns);
    t->deadline = t->next ? detsim__sched_follow_deadline(t) : t->until;
  }
  detsim__ptimer_clock_stepped();
  net_timerfd_clock_stepped(delta);
}
