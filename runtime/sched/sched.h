/* sched/: the one header of the runtime's sched part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_SCHED_PART_H
#define DETSIM_SCHED_PART_H

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

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "trace/trace.h"

#define DETSIM_NO_DEADLINE UINT64_MAX

typedef struct detsim_thread detsim_thread;

/* The calling thread's record, NULL when it is not a simulated thread
 * (inline: every interceptor asks, the lock path twice). */
extern __thread detsim_thread *detsim__tls_self __attribute__((tls_model("initial-exec")));
static inline detsim_thread *detsim__self(void) { return detsim__tls_self; }

/* The thread's id: 1 for the main thread, then 2, 3… in creation order,
 * never reused in a run.  Suitable for an owner word inside an object.
 * (Inline, defined with the thread's record below.) */
static inline uint32_t detsim__thread_id(const detsim_thread *t);

/* A yield point: records the event and lets the strategy switch threads.
 * Must be called by a simulated thread. */
void detsim__yield_at(enum detsim_event_kind kind, const void *obj, uintptr_t pc);
/* The same with an aux value for the trace record. */
void detsim__yield_aux(enum detsim_event_kind kind, const void *obj, uintptr_t pc, uint32_t aux);
/* The call site recorded in the trace is the interceptor's caller. */
#define detsim__yield(kind, obj) \
  detsim__yield_aux((kind), (obj), (uintptr_t)__builtin_return_address(0), 0)

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

/* The threads blocked in detsim__block on obj with predicate `ready`
 * whose predicate does not hold, in slot order: how many (in out). */
unsigned detsim__sched_blocked_on(const void *obj, bool (*ready)(void *arg), detsim_thread **out);

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
/* The live simulated thread of id (detsim__thread_id), NULL if none. */
detsim_thread *detsim__thread_by_id(uint32_t id);
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

/* Thread cancellation (pthread_cancel), as POSIX and glibc give it.
 *
 * A cancel request is a flag on the target; it acts
 *  - deferred (the default): at the target's next cancellation point, one of
 *    the simulated calls POSIX names (each opens with DETSIM_CANCEL_POINT());
 *    a request already pending when the call starts acts at once, and one
 *    that arrives while the call waits ends the wait (as EINTR inside the
 *    runtime, so the call's own paths clean up) and acts as the call
 *    returns; a call that finished its work first returns normally and the
 *    request stays pending;
 *  - asynchronous: at the target's next yield point, since only one thread
 *    runs at a time;
 *  - never while the target's cancel state is disabled.
 * Acting is pthread_exit(PTHREAD_CANCELED): the real unwinding runs the
 * cleanup handlers, and they and the thread-specific data destructors run
 * as the simulated thread (sched.c finishes it from its last destructor
 * round).  A cond wait takes its mutex again before acting; a join that is
 * canceled leaves its target joinable.
 */

#include <stdbool.h>
#include <stdint.h>


/* Opens a cancellation point; the scope's end closes it.  Declares a local,
 * so it goes first in an interceptor's body. */
#define DETSIM_CANCEL_POINT() \
  __attribute__((cleanup(detsim__cancel_point_leave), unused)) int detsim__cancel_point_ = \
      detsim__cancel_point_enter((uintptr_t)__builtin_return_address(0))

/* `pc`: the program's call site, for the trace. */
int detsim__cancel_point_enter(uintptr_t pc);
void detsim__cancel_point_leave(int *entered);

/* A wait of the running cancellation point ended for a cancel request (a
 * call that retries on EINTR by itself must stop retrying). */
bool detsim__cancel_cut(void);

/* As detsim__wait, in a cancellation point that must act itself (a cond
 * wait): ECANCELED when a cancel request ended the wait. */
int detsim__wait_cancelable(enum detsim_event_kind kind, const void *obj, uint64_t deadline_ns);

/* Acts on the calling thread's cancel request: never returns.  The trace
 * names the call site of the cancellation point it acts in. */
_Noreturn void detsim__cancel_act(void);

/* The scheduler's data, shared by the runtime's own modules (sched.c,
 * report.c, init.c, watchdog.c).  Interceptors use sched.h only. */

#include <signal.h>
#include <sys/types.h>

#include "limits.h"
#include "world_abi.h"
#include "core/core.h"

enum detsim_thread_state {
  DETSIM_T_FREE = 0,   /* slot unused */
  DETSIM_T_RUNNABLE,   /* running, or may be picked */
  DETSIM_T_BLOCKED,    /* waits for ready() or its deadline */
  DETSIM_T_FINISHED,   /* done, waiting to be joined */
};

/* What a pending signal carries into its siginfo_t. */
struct detsim_sig_info {
  int code;            /* si_code: SI_USER, SI_TKILL, SI_QUEUE, SI_KERNEL, SI_TIMER */
  int timer;           /* SI_TIMER: the POSIX timer that sent it (time/time.h) */
  union sigval value;  /* sigqueue's value, the timer's sigev_value, or a
                          SIGCHLD's si_status (CLD_* codes) */
  int pid;             /* SI_USER, SI_TKILL, SI_QUEUE: the sender's virtual
                          pid; a SIGCHLD's si_pid: the child that ended */
};

struct detsim_thread {
  uint32_t *baton;               /* futex word: 1 = this thread may run (own_baton,
                                    or in a world its shared word, DETSIM_BATON_*) */
  uint32_t own_baton;
  uint32_t id;                   /* 1 = main, then creation order, never reused */
  enum detsim_thread_state state;
  unsigned suppress;             /* > 0: yield points are not yield points */
  /* blocking */
  enum detsim_event_kind block_kind;
  const void *block_obj;
  bool (*ready)(void *);
  void *ready_arg;
  uint64_t deadline;             /* when to look again: `until`, or earlier */
  /* A wait that follows arrivals (detsim__block_follow): its own deadline,
   * and when ready() may next turn true by itself (NULL for other waits). */
  uint64_t until;
  uint64_t (*next)(void *);
  /* A wait until an absolute CLOCK_REALTIME time: its deadline follows the
   * node's clock steps (time/time.h). */
  bool rt_abs;
  clockid_t rt_clock;
  uint64_t rt_abs_ns;
  uintptr_t block_pc;
  bool waiting, woken;
  /* lifecycle */
  pthread_t pthread;
  void *(*start)(void *);
  void *arg;
  void *retval;
  pid_t tid;                     /* its virtual tid (proc/proc.h): gettid, SIGEV_THREAD_ID */
  bool detached;
  struct detsim_thread *joiner;
  /* strategy */
  uint64_t steps;                /* events of this thread: where a plan's decisions are (trace/trace.h) */
  uintptr_t site_pc;             /* the program's call site of the last yield point ... */
  uint64_t site_step;            /* ... and the step it was at (see detsim__block) */
  int64_t priority;
  uint64_t run_length;
  /* signals (signal.h): bit s-1 stands for signal s */
  uint64_t sig_mask;
  uint64_t sig_pending;          /* thread-directed */
  struct detsim_sig_info sig_info[64]; /* what each pending one carries */
  bool sig_restart;              /* the last EINTR of detsim__block_intr may restart */
  unsigned handler_depth;        /* handlers running on this thread ... */
  uint64_t handler_saved[8];     /* ... and the masks to restore as each returns
                                    (or a siglongjmp leaves it) */
  struct {                       /* the last sigsetjmp buffers (signal.h) */
    const void *env;
    uint64_t mask;
    unsigned handler_depth;
    unsigned cancel_point;       /* a jump out of a cancellation point leaves it */
  } jmp_marks[DETSIM_JMP_MARKS];
  unsigned jmp_next;             /* the mark the next sigsetjmp replaces */
  /* cancellation (sched/sched.h) */
  bool cancel_disabled;          /* PTHREAD_CANCEL_DISABLE */
  bool cancel_async;             /* PTHREAD_CANCEL_ASYNCHRONOUS */
  bool cancel_pending;           /* pthread_cancel asked; not acted on yet */
  bool cancel_cut;               /* a wait in a cancellation point ended for it */
  bool cancel_wait;              /* the next plain wait ends for a cancel (join, cond wait) */
  bool block_cancelable;         /* this wait ends for a cancel */
  unsigned cancel_point;         /* > 0: inside a cancellation point ... */
  uintptr_t cancel_pc;           /* ... called from here */
  /* The thread is on its way out (pthread_exit, a cancel, or its start
   * routine returned): cleanup handlers and thread-specific data
   * destructors run as this simulated thread; the last destructor round
   * finishes it (sched.c). */
  bool exiting;
  unsigned tsd_rounds;
  /* the machine it sees (machine.h) */
  uint64_t cpu_ns;               /* virtual time it ran (CPU-time clocks) */
  uint64_t affinity;             /* bit c: may run on simulated CPU c; 0: all */
  int sched_policy;              /* the kernel's: as the program set it (SCHED_OTHER = 0) */
  int sched_priority;
  /* glibc's copy of them in the thread's descriptor (machine_prio.c):
   * what pthread_getschedparam shows and PRIO_PROTECT locks compare */
  bool glibc_policy_known, glibc_param_known;
  int glibc_policy, glibc_priority;
  /* PTHREAD_PRIO_PROTECT mutexes held: glibc's count per ceiling (index
   * ceiling - 1, unsigned as glibc's, which may wrap) and the highest */
  unsigned tpp_count[DETSIM_RT_PRIO_MAX];
  int tpp_max;
  /* PTHREAD_PRIO_INHERIT: the highest priority of the threads waiting,
   * directly or through a chain, on PI locks it owns (machine_prio.c) */
  int pi_boost;
  /* its nice value (getpriority/setpriority, machine_nice.c), once set or
   * inherited; before that the process's at its start */
  bool nice_known;
  int nice;
  /* The first robust mutex it holds (sync/sync.h: the rest are linked
   * through the mutexes), given up with its owner dead when it ends */
  void *robust_held;
  /* reports */
  bool report_request;
  char where[2048];
};

struct detsim_world {
  struct detsim_thread threads[DETSIM_MAX_THREADS];
  unsigned slots_used;
  unsigned live;
  uint32_t next_id;
  struct detsim_thread *current;
  struct detsim_thread *reporter;
  struct detsim_rng rng;
  uint64_t seed;
  bool running;
  /* random walk */
  double preempt;
  uint64_t preempt_countdown;    /* yield points to the next preemption */
  /* pct: the change points are this process's, or in a world the
   * world's (pct_points points there) */
  bool pct;
  uint64_t pct_steps;
  struct detsim_world_pct pct_own;
  struct detsim_world_pct *pct_points;
  /* limits, checked on every event with one compare each */
  uint64_t event_stop;
  uint64_t max_sim_time_ns;
  uint64_t time_stop;            /* min(max_sim_time_ns, a world's next fault) */
  /* Arrivals were posted since the following waits' deadlines were last
   * computed (detsim__sched_times_changed): they are recomputed before
   * any deadline is read for a time jump or an idle node's wake time. */
  bool times_stale;
  uint64_t break_at;
  /* The choices this process's dispatcher made (a world's): where a plan
   * keys them (trace/trace.h). */
  uint64_t dispatch_steps;
};

extern struct detsim_world W;

static inline uint32_t detsim__thread_id(const detsim_thread *t) { return t->id; }

/* A cancel request this thread must act on at its next cancellation point
 * (or, asynchronous, at its next yield point). */
static inline bool detsim__cancel_due(const detsim_thread *t) {
  return t->cancel_pending && !t->cancel_disabled && !t->exiting;
}

uint64_t detsim__event(enum detsim_event_kind kind, detsim_thread *t, const void *obj,
                       uintptr_t pc, uint32_t aux);
void detsim__yield_to_other(uintptr_t pc);
/* The simulated thread of a pthread_t, finished ones included; NULL if none. */
detsim_thread *detsim__thread_find(pthread_t thread);
_Noreturn void detsim__deadlock(detsim_thread *self);
void detsim__break_now(uint64_t event);
void detsim__sched_start(uint64_t seed);
void detsim__sched_forget_in_child(void);
/* A run's first fork (world_proc.c): the baton words move into the world. */
void detsim__sched_become_world(void);
/* Before a simulated fork, holding the world: what the child's scheduler
 * takes first (its first preemption gap in choice mode), drawn by the
 * parent so that it comes in the history's order. */
void detsim__sched_fork_prepare(void);
/* Under PCT the priority the child's thread takes (drawn by the prepare
 * as for a new thread). */
int64_t detsim__sched_fork_child_priority(void);
/* The child of a simulated fork: only the forking thread is left. */
void detsim__sched_fork_child(void);
bool detsim__sched_pct(void);
/* PCT in a run's own world (its first fork or exec): the change points
 * move into the world's header, where every process meets them. */
void detsim__sched_pct_share(struct detsim_world_pct *shared);
/* The highest priority of this process's threads that can run (with
 * `idle`: of every live one): what the world's PCT choices compare. */
int64_t detsim__sched_pct_top(bool idle);
/* The owner of a simulated mutex (0 when unknown): for deadlock reports. */
uint32_t detsim__mutex_owner_hint(const void *mutex);

/* What sched.c (threads, the baton, blocking) and sched_world.c (choices
 * that include other nodes of a world) use of each other.  Only those two
 * files include it; everything here runs holding the baton. */

#include <stdbool.h>
#include <stdint.h>


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
/* A decision among n options: the choices file's next byte in choice mode
 * (none for one option), else the scheduler's seeded stream. */
uint64_t detsim__sched_draw_below(uint64_t n);

/* ---- sched_world.c ---- */

/* The world came to this node through `self`'s baton word: it makes the
 * node's choice; true when that is itself. */
bool detsim__sched_take_world(detsim_thread *self);
/* A choice over this node's runnable threads (unless `local` is false) and
 * the other nodes that may have something to run; none may be there.
 * `preempting`: at a yield point, whose plan default is to keep running
 * (a plan's preemptions are plan_step's); otherwise a replayed plan
 * decides, its default the first option.  A schedule plan being recorded
 * gets the choice when it differs from the default (trace/trace.h). */
struct choice detsim__sched_world_choose(detsim_thread *exclude, bool local, bool preempting);
/* The candidate node whose process has virtual pid `pid`, -1 if none. */
int detsim__sched_world_node_of(int32_t pid);
/* The same, waiting out deadlines in virtual time until there is one. */
struct choice detsim__sched_world_choose_when_stuck(detsim_thread *self, detsim_thread *exclude, bool local);
/* Runs choice `c` after `self` gave up the CPU. */
void detsim__sched_world_switch(detsim_thread *self, struct choice c);
/* The world leaves this node for `node`; `self` (NULL: the dispatcher)
 * then waits for its baton, or leaves. */
void detsim__sched_leave_for(detsim_thread *self, unsigned node);

#endif /* DETSIM_SCHED_PART_H */
