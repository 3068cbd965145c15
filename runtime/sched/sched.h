/* The scheduler: simulated threads, one running at a time.
 *
 * Every simulated thread is a real pthread parked on its own futex word.  The
 * running thread holds the baton; at each yield point it asks the strategy
 * (random walk or PCT, drawn from the seed) who runs next and hands the baton
 * over.  A blocked thread waits on a predicate over runtime state; the
 * scheduler evaluates the predicates of blocked threads when it picks, so a
 * thread is never picked before what it waits for is ready, and no wake-up
 * can be lost.
 *
 * Rules for callers (the interceptors):
 *  - Only the baton holder touches runtime state.  detsim__self() is NULL in
 *    a thread outside the simulation (the watchdog, a thread in its real
 *    exit path, any call before the runtime started): such calls must not
 *    block in the simulation and must not touch the thread table; they act
 *    on the object words with atomics only.
 *  - A predicate passed to detsim__block() must be a pure function of
 *    runtime and object state: it is evaluated by whichever thread schedules.
 */
#ifndef DETSIM_SCHED_H
#define DETSIM_SCHED_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "trace.h"

#define DETSIM_NO_DEADLINE UINT64_MAX

typedef struct detsim_thread detsim_thread;

/* The calling thread's record, NULL when it is not a simulated thread. */
detsim_thread *detsim__self(void);

/* The thread's id: 1 for the main thread, then 2, 3… in creation order,
 * never reused in a run.  Suitable for an owner word inside an object. */
uint32_t detsim__thread_id(const detsim_thread *t);

/* A yield point: records the event and lets the strategy switch threads.
 * Must be called by a simulated thread. */
void detsim__yield_at(enum detsim_event_kind kind, const void *obj, uintptr_t pc);
/* The call site recorded in the trace is the interceptor's caller. */
#define detsim__yield(kind, obj) \
  detsim__yield_at((kind), (obj), (uintptr_t)__builtin_return_address(0))

/* Blocks the calling thread until ready(arg) is true or virtual time reaches
 * deadline_ns (DETSIM_NO_DEADLINE for none).  If ready(arg) already holds and
 * no switch is drawn, returns at once.  Returns 0 when ready, ETIMEDOUT when
 * the deadline passed first.  `kind` and `obj` say what it waits for in the
 * trace and in a deadlock report. */
int detsim__block(enum detsim_event_kind kind, const void *obj,
                  bool (*ready)(void *arg), void *arg, uint64_t deadline_ns);

/* As detsim__block, for a wait a signal interrupts (a read, a sleep, poll,
 * sem_wait): EINTR when a signal's handler ran meanwhile; then
 * detsim__restartable() says whether every such handler had SA_RESTART. */
int detsim__block_intr(enum detsim_event_kind kind, const void *obj,
                       bool (*ready)(void *arg), void *arg, uint64_t deadline_ns);
bool detsim__restartable(void);
/* As detsim__block_intr, for a wait whose predicate may also turn true by
 * itself at times next(arg) names (arrivals on the network), until virtual
 * time reaches `until`.  The thread wakes only when ready(arg) holds, at
 * `until` (ETIMEDOUT) or for a signal (EINTR): an arrival it does not wait
 * for costs no wake-up.  next(arg) must be a pure function as ready(arg),
 * returning a time after now or DETSIM_NO_DEADLINE. */
int detsim__block_follow(enum detsim_event_kind kind, const void *obj, bool (*ready)(void *arg),
                         uint64_t (*next)(void *arg), void *arg, uint64_t until);
/* Something was sent towards this node's waits (an arrival on the way, a
 * timer set): the times that following waits wait for are recomputed
 * before the scheduler next needs them. */
void detsim__sched_times_changed(void);

/* Wait-queue style blocking for condition variables: waits until a
 * detsim__wake_one/all(obj) picks this thread, or the deadline.  Returns 0
 * when woken, ETIMEDOUT on the deadline. */
int detsim__wait(enum detsim_event_kind kind, const void *obj, uint64_t deadline_ns);
/* Wakes one thread in detsim__wait on obj, chosen from the seed; returns how
 * many were woken (0 or 1). */
int detsim__wake_one(const void *obj);
/* Wakes every thread in detsim__wait on obj; returns how many. */
int detsim__wake_all(const void *obj);
/* Chooses one of n candidate waiters (n >= 1) from the seed, or as a
 * replayed plan says, recording the choice as a wake decision: for wait
 * queues kept outside the scheduler (futex.c).  Must be called by a
 * simulated thread. */
detsim_thread *detsim__choose_waiter(detsim_thread **cands, unsigned n);

/* Threads. */
int detsim__thread_create(pthread_t *out, const pthread_attr_t *attr,
                          void *(*start)(void *), void *arg);
int detsim__thread_join(pthread_t thread, void **retval, bool try_only, uint64_t deadline_ns);
int detsim__thread_detach(pthread_t thread);
_Noreturn void detsim__thread_exit(void *retval);
/* The live simulated thread of a pthread_t, NULL if none. */
detsim_thread *detsim__thread_of(pthread_t thread);
/* The live simulated thread whose kernel thread id is tid, NULL if none;
 * its pthread_t; how many simulated threads are alive. */
detsim_thread *detsim__thread_of_tid(pid_t tid);
pthread_t detsim__thread_pthread(const detsim_thread *t);
unsigned detsim__live_threads(void);

/* A draw from the scheduler's seeded stream (for choices interceptors make,
 * e.g. which waiter a signal wakes). */
uint64_t detsim__sched_draw(void);

/* The number of the event being recorded, and the run's seed (for messages). */
uint64_t detsim__event_count(void);
uint64_t detsim__seed(void);

/* Suppresses yield points (and their events) while > 0: DETSIM_VERIFY
 * checks and the runtime's own use of intercepted calls. */
void detsim__suppress_begin(void);
void detsim__suppress_end(void);

/* The runtime itself is running library code (libunwind in a report):
 * interceptors it reaches act natively and quietly, without events. */
void detsim__internal_begin(void);
void detsim__internal_end(void);
bool detsim__internal(void);

/* Started by the runtime's constructor; true from then until the end. */
bool detsim__running(void);

#endif
