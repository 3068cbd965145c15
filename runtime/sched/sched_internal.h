/* The scheduler's data, shared by the runtime's own modules (sched.c,
 * report.c, init.c, watchdog.c).  Interceptors use sched.h only. */
#ifndef DETSIM_SCHED_INTERNAL_H
#define DETSIM_SCHED_INTERNAL_H

#include <signal.h>
#include <sys/types.h>

#include "limits.h"
#include "prng.h"
#include "sched.h"

enum detsim_thread_state {
  DETSIM_T_FREE = 0,   /* slot unused */
  DETSIM_T_RUNNABLE,   /* running, or may be picked */
  DETSIM_T_BLOCKED,    /* waits for ready() or its deadline */
  DETSIM_T_FINISHED,   /* done, waiting to be joined */
};

/* What a pending signal carries into its siginfo_t. */
struct detsim_sig_info {
  int code;            /* si_code: SI_USER, SI_TKILL, SI_QUEUE, SI_KERNEL, SI_TIMER */
  int timer;           /* SI_TIMER: the POSIX timer that sent it (posix_timer.h) */
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
   * node's clock steps (clock.h). */
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
  pid_t tid;                     /* its virtual tid (proc_ids.h): gettid, SIGEV_THREAD_ID */
  bool detached;
  struct detsim_thread *joiner;
  /* strategy */
  uint64_t steps;                /* events of this thread: where a plan's decisions are (plan.h) */
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
  /* cancellation (cancel.h) */
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
  int sched_policy;              /* as the program set it (SCHED_OTHER = 0) */
  int sched_priority;
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
  /* pct */
  bool pct;
  unsigned pct_changes, pct_next;
  uint64_t pct_steps;
  uint64_t pct_change_at[DETSIM_PCT_DEPTH_MAX];
  int64_t pct_lowest;
  /* limits, checked on every event with one compare each */
  uint64_t event_stop;
  uint64_t max_sim_time_ns;
  uint64_t time_stop;            /* min(max_sim_time_ns, a world's next fault) */
  /* Arrivals were posted since the following waits' deadlines were last
   * computed (detsim__sched_times_changed): they are recomputed before
   * any deadline is read for a time jump or an idle node's wake time. */
  bool times_stale;
  uint64_t break_at;
};

extern struct detsim_world W;

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
void detsim__yield_aux(enum detsim_event_kind kind, const void *obj, uintptr_t pc, uint32_t aux);
_Noreturn void detsim__deadlock(detsim_thread *self);
void detsim__break_now(uint64_t event);
void detsim__sched_start(uint64_t seed);
void detsim__sched_forget_in_child(void);
/* A run's first fork (world_proc.c): the baton words move into the world. */
void detsim__sched_become_world(void);
/* The child of a simulated fork: only the forking thread is left. */
void detsim__sched_fork_child(void);
bool detsim__sched_pct(void);
/* The owner of a simulated mutex (0 when unknown): for deadlock reports. */
uint32_t detsim__mutex_owner_hint(const void *mutex);

#endif
