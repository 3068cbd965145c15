/* What sched.c (threads, the baton, blocking) and sched_world.c (choices
 * that include other nodes of a world) use of each other.  Only those two
 * files include it; everything here runs holding the baton. */
#ifndef DETSIM_SCHED_CORE_H
#define DETSIM_SCHED_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "sched_internal.h"

/* A choice in a world: a thread of this node, or another node. */
struct choice {
  detsim_thread *thread;  /* a thread of this node, or */
  int node;               /* another node (-1: none) */
};

/* ---- sched.c ---- */

/* The calling real thread's simulated thread (NULL: outside). */
void detsim__sched_set_self(detsim_thread *t);
/* The baton: give it to `next` (it runs), wait for it (a world may come to
 * this node through it instead: detsim__sched_take_world), or both. */
void detsim__sched_give_baton(detsim_thread *next);
void detsim__sched_wait_baton(detsim_thread *self);
void detsim__sched_switch_to(detsim_thread *self, detsim_thread *next);
/* This node's threads that can run now, in slot order (without `exclude`). */
unsigned detsim__sched_collect_runnable(detsim_thread **out, detsim_thread *exclude);
/* The earliest deadline of this node's blocked threads and timers. */
uint64_t detsim__sched_next_deadline(void);
/* When a following wait looks again (its deadline, or the next arrival). */
uint64_t detsim__sched_follow_deadline(detsim_thread *t);
/* The virtual time at which detsim__event must look up (limits, faults). */
void detsim__sched_refresh_time_stop(void);

/* ---- sched_world.c ---- */

/* The world came to this node through `self`'s baton word: it makes the
 * node's choice; true when that is itself. */
bool detsim__sched_take_world(detsim_thread *self);
/* A choice over this node's runnable threads (unless `local` is false) and
 * the other nodes that may have something to run; none may be there. */
struct choice detsim__sched_world_choose(detsim_thread *exclude, bool local);
/* The same, waiting out deadlines in virtual time until there is one. */
struct choice detsim__sched_world_choose_when_stuck(detsim_thread *self, detsim_thread *exclude, bool local);
/* Runs choice `c` after `self` gave up the CPU. */
void detsim__sched_world_switch(detsim_thread *self, struct choice c);
/* The world leaves this node for `node`; `self` (NULL: the dispatcher)
 * then waits for its baton, or leaves. */
void detsim__sched_leave_for(detsim_thread *self, unsigned node);

#endif
