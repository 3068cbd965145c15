/* Schedule plans: a run's scheduling decisions as data.
 *
 * A plan lists only the decisions that differ from the plan strategy's
 * default: at a yield point, keep running the current thread; when some
 * thread must be picked, the first runnable one in slot order; when one
 * waiter of several is woken, the first.  Each entry names where the
 * decision is taken, as the deciding thread and its own event count (its
 * step), its kind and the thread it chose.  A thread's steps are a property
 * of its own code path, so dropping another decision from a plan leaves
 * this one where it was; global event numbers would all shift.
 *
 * DETSIM_OPTIONS=plan_out=FILE records the decisions of any run (random
 * walk, PCT or a plan) and writes them when it ends; DETSIM_OPTIONS=plan=FILE
 * replays one.  Replaying the whole recorded plan takes the recorded
 * history; replaying a subset of it is still a well-defined run, which is
 * what simreplay --shrink searches (entries whose decision point no longer
 * comes, or whose thread cannot run there, are passed over).
 *
 * The file (text, line-oriented; '#' lines are comments for people and tools):
 *   # detsim plan 1
 *   seed N
 *   switch T STEP U          at thread T's event number STEP, run thread U
 *   wake T STEP U            at thread T's step STEP, wake thread U of the
 *                            waiters (thread ids as in the trace)
 *   end COUNT                the number of entries: a truncated file is refused
 * A '#' after an entry starts a comment (the runtime notes the global event
 * number there).
 */
#ifndef DETSIM_PLAN_H
#define DETSIM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum detsim_plan_kind { DETSIM_PLAN_SWITCH = 0, DETSIM_PLAN_WAKE = 1 };

/* Loads DETSIM_OPTIONS plan=; on a bad file writes the reason to err and
 * returns -1 (the run has not started). */
int detsim__plan_load(const char *path, uint64_t seed, char *err, size_t errlen);
/* A plan is being replayed (the plan strategy). */
extern bool detsim__plan_replaying;
/* The thread id the plan chose at this decision point of thread `thread`
 * at its step `step`, or 0 for the default. */
uint32_t detsim__plan_take(uint32_t thread, uint64_t step, enum detsim_plan_kind kind);
/* Records a decision that differs from the default (when plan_out is set). */
void detsim__plan_record(uint32_t thread, uint64_t step, enum detsim_plan_kind kind, uint32_t chosen);
/* Writes plan_out (once; signal-safe: write(2) only). */
void detsim__plan_write_out(const char *class_name, uint64_t events, uint64_t history);

#endif
