/* Nice values: getpriority, setpriority and nice on the simulated threads.
 *
 * Linux keeps a nice value per thread: PRIO_PROCESS names one thread by
 * its id (a process's pid is its main thread's), PRIO_PGRP and PRIO_USER
 * every thread of the group or the user; getpriority answers the lowest
 * value (the highest priority) among them.  Before, the calls ran natively
 * with the world's virtual pids, which named another real process or
 * none (libuv's process_priority test failed with ESRCH).
 *
 * Here the threads are this process's: PRIO_PGRP and PRIO_USER with 0 or
 * the caller's own group or uid cover its threads; another process of the
 * world (a forked child, another node) is not reached yet, a loud error
 * and ENOSYS.  A thread starts at its creator's value, the main thread at
 * the real process's value when the run started (what `nice -n` gave it),
 * so a run under nice answers as natively.  Lowering the value (a higher
 * priority) needs privilege, as Linux's can_nice: an effective uid of 0
 * may, others get EACCES (nice(): EPERM).  The scheduler does not weigh
 * the values: every interleaving of SCHED_OTHER threads is one Linux may
 * take on one CPU too. */
#include <errno.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/core.h"
#include "intercept/intercept.h"
#include "machine/machine.h"
#include "proc/proc.h"
#include "sched/sched.h"

#define NICE_MIN (-20)
#define NICE_MAX 19

static int start_nice(void) {
  static bool known;
  static int value;
  if (!known) {
    errno = 0;
    int v = REAL(getpriority)(PRIO_PROCESS, 0);
    value = v == -1 && errno != 0 ? 0 : v;
    known = true;
  }
  return value;
}

static int nice_of(const detsim_thread *t) { return t->nice_known ? t->nice : start_nice(); }

static bool live(const detsim_thread *t) { return t->state == DETSIM_T_RUNNABLE || t->state == DETSIM_T_BLOCKED; }

/* The threads of this process that `which`/`who` names. */
struct targets {
  unsigned n;
  detsim_thread *t[DETSIM_MAX_THREADS];
};

/* 0, or -1 with errno set (none, or not this process's). */
static int find(int which, id_t who, struct targets *out, const char *call) {
  out->n = 0;
  bool all = false;
  detsim_thread *self = detsim__self();
  switch (which) {
  case PRIO_PROCESS:
    if (who == 0) {
      out->t[out->n++] = self;
      return 0;
    }
    for (unsigned i = 0; i < W.slots_used; i++)
      if (live(&W.threads[i]) && (id_t)W.threads[i].tid == who) out->t[out->n++] = &W.threads[i];
    break;
  case PRIO_PGRP:
    all = who == 0 || (pid_t)who == detsim__proc_pgid();
    break;
  case PRIO_USER:
    all = who == 0 || who == getuid();
    break;
  default:
    errno = EINVAL;
    return -1;
  }
  if (all)
    for (unsigned i = 0; i < W.slots_used; i++)
      if (live(&W.threads[i])) out->t[out->n++] = &W.threads[i];
  if (out->n > 0) return 0;
  bool elsewhere = which == PRIO_PROCESS ? detsim__proc_node_of_any((pid_t)who) >= 0
                   : which == PRIO_PGRP  ? detsim__proc_group_exists((pid_t)who, 0)
                                         : false; /* the world's processes are all this user's */
  if ((int)who < 0 || !elsewhere) {
    errno = ESRCH;
    return -1;
  }
  detsim__msg("error: %s of %s %d, another process of the simulated world, is not simulated; the call fails with "
              "ENOSYS", call, which == PRIO_PROCESS ? "process" : which == PRIO_PGRP ? "process group" : "user",
              (int)who);
  errno = ENOSYS;
  return -1;
}

DETSIM_EXPORT int __detsim_getpriority(__priority_which_t which, id_t who) {
  if (detsim__self() == NULL) return REAL(getpriority)(which, who);
  static struct targets tg;
  if (find((int)which, who, &tg, "getpriority") < 0) return -1;
  int best = NICE_MAX;
  for (unsigned i = 0; i < tg.n; i++)
    if (nice_of(tg.t[i]) < best) best = nice_of(tg.t[i]);
  return best;
}
DETSIM_INTERCEPT_ALIAS(getpriority)

static int set_all(const struct targets *tg, int value) {
  if (value < NICE_MIN) value = NICE_MIN;
  if (value > NICE_MAX) value = NICE_MAX;
  for (unsigned i = 0; i < tg->n; i++)
    if (value < nice_of(tg->t[i]) && geteuid() != 0) {
      errno = EACCES;
      return -1;
    }
  for (unsigned i = 0; i < tg->n; i++) {
    tg->t[i]->nice = value;
    tg->t[i]->nice_known = true;
  }
  return 0;
}

DETSIM_EXPORT int __detsim_setpriority(__priority_which_t which, id_t who, int value) {
  if (detsim__self() == NULL) return REAL(setpriority)(which, who, value);
  static struct targets tg;
  if (find((int)which, who, &tg, "setpriority") < 0) return -1;
  return set_all(&tg, value);
}
DETSIM_INTERCEPT_ALIAS(setpriority)

/* glibc's nice(): the calling thread's value plus inc, EPERM where
 * setpriority says EACCES; the new value (which may be -1) on success. */
DETSIM_EXPORT int __detsim_nice(int inc) {
  if (detsim__self() == NULL) return REAL(nice)(inc);
  detsim_thread *self = detsim__self();
  long want = (long)nice_of(self) + inc;
  struct targets tg = { .n = 1 };
  tg.t[0] = self;
  if (set_all(&tg, want < NICE_MIN ? NICE_MIN : want > NICE_MAX ? NICE_MAX : (int)want) < 0) {
    errno = EPERM;
    return -1;
  }
  return nice_of(self);
}
DETSIM_INTERCEPT_ALIAS(nice)
