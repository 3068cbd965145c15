/* The priority protocols of pthread mutexes, as glibc 2.36 on Linux.
 *
 * PTHREAD_PRIO_INHERIT (the kernel's PI futexes under glibc): a thread that
 * waits for the mutex raises its owner's effective priority to its own,
 * and through the owner's own PI waits that of the owners down the chain
 * (machine_prio.c computes it from detsim__sync_pi_owner).  Unlocking hands
 * the mutex to the waiter of the highest priority (the seed draws among
 * equals), as the kernel's FUTEX_UNLOCK_PI does, so nobody can take it in
 * between; the owner's boost ends with it.  As glibc:
 *  - unlock by a thread that does not own it is EPERM, for every type
 *    (the normal type too), and so is unlock of an unlocked one;
 *  - trylock by the owner: errorcheck EDEADLK, recursive counts up,
 *    normal EBUSY; a normal one relocked by its owner (or a PI deadlock)
 *    waits for ever, which the scheduler reports (the kernel's EDEADLK
 *    glibc turns into that wait).
 *
 * PTHREAD_PRIO_PROTECT (glibc's, in user space): the mutex has a ceiling
 * (1..99, from the attribute; 1 when it set none).  A lock first compares
 * the caller's priority as glibc knows it with the ceiling (above: EINVAL),
 * then raises the caller to the ceiling (machine_prio.c's tpp change: the
 * kernel's priority becomes the highest ceiling held), then takes the mutex
 * or waits for it, raised; unlock gives the raise back.  As glibc:
 *  - the raise goes through sched_setscheduler with glibc's copy of the
 *    policy, so a SCHED_OTHER thread's lock fails with EINVAL (and, as
 *    glibc counts the ceiling before it fails, its next one succeeds);
 *  - trylock by the owner of an errorcheck one is EDEADLK; unlock by a
 *    non-owner is EPERM for errorcheck and recursive, and for a normal one
 *    unlocks it and counts the ceiling out of the caller's raises;
 *  - a timed lock that times out keeps its raise (glibc returns before it
 *    gives it back).
 * pthread_mutex_setprioceiling waits until the mutex is free (glibc takes it
 * without the protocol), or, for the owner of a recursive one, moves the
 * owner's raise to the new ceiling; the owner of an errorcheck one gets
 * EDEADLK, of a normal one waits for itself.
 *
 * Threads outside the simulation take and release protocol mutexes with
 * the same errors, without priorities (they have none here).
 */
#include <errno.h>

#include "core/core.h"
#include "intercept/intercept.h"
#include "limits.h"
#include "machine/machine.h"
#include "sanitize/sanitize.h"
#include "sched/sched.h"
#include "sync/sync.h"

#define OWNER(m) detsim__sync_word((m), DETSIM_MUTEX_OWNER)
#define DEPTH(m) detsim__sync_word((m), DETSIM_MUTEX_DEPTH)
#define CEILING(m) detsim__sync_word((m), DETSIM_MUTEX_CEILING)
#define KIND(m) detsim__sync_word((m), DETSIM_MUTEX_KIND)

int detsim__mutex_init_attr(pthread_mutex_t *m, const pthread_mutexattr_t *attr) {
  int type = PTHREAD_MUTEX_DEFAULT, protocol = PTHREAD_PRIO_NONE, robust = PTHREAD_MUTEX_STALLED, ceiling = 0;
  int pshared = PTHREAD_PROCESS_PRIVATE;
  if (attr != NULL) {
    if (REAL(pthread_mutexattr_gettype)(attr, &type) != 0 || REAL(pthread_mutexattr_getprotocol)(attr, &protocol) != 0 ||
        REAL(pthread_mutexattr_getrobust)(attr, &robust) != 0 ||
        REAL(pthread_mutexattr_getpshared)(attr, &pshared) != 0 ||
        REAL(pthread_mutexattr_getprioceiling)(attr, &ceiling) != 0)
      return EINVAL;
  }
  /* glibc has no robust priority-protected mutexes. */
  if (protocol == PTHREAD_PRIO_PROTECT && robust == PTHREAD_MUTEX_ROBUST) return ENOTSUP;
  int rc = detsim__mutex_init_type(m, type);
  if (rc != 0) return rc;
  if (protocol == PTHREAD_PRIO_INHERIT) SYNC_STORE(KIND(m), (uint32_t)type | DETSIM_MUTEX_KIND_PI);
  if (protocol == PTHREAD_PRIO_PROTECT) {
    /* glibc's attribute reads back its lowest ceiling when none was set. */
    CHECK(ceiling >= DETSIM_RT_PRIO_MIN && ceiling <= DETSIM_RT_PRIO_MAX);
    SYNC_STORE(CEILING(m), (uint32_t)ceiling);
    SYNC_STORE(KIND(m), (uint32_t)type | DETSIM_MUTEX_KIND_PP);
  }
  uint32_t flags = (robust == PTHREAD_MUTEX_ROBUST ? DETSIM_MUTEX_KIND_ROBUST : 0) |
                   (pshared == PTHREAD_PROCESS_SHARED ? DETSIM_MUTEX_KIND_PSHARED : 0);
  if (flags != 0) SYNC_STORE(KIND(m), SYNC_LOAD(KIND(m)) | flags);
  return 0;
}

/* The owner relocks: 0, or the error of its type; 1 when a normal mutex
 * must wait for itself. */
static int relock(pthread_mutex_t *m, int type, bool try_only) {
  if (type == PTHREAD_MUTEX_ERRORCHECK) return EDEADLK;
  if (type == PTHREAD_MUTEX_RECURSIVE) {
    uint32_t depth = SYNC_LOAD(DEPTH(m));
    CHECK_GE(depth, 1); /* an owned mutex has a depth */
    CHECK_LE(depth, DETSIM_MUTEX_RECURSION_MAX);
    if (depth == DETSIM_MUTEX_RECURSION_MAX) return EAGAIN;
    SYNC_STORE(DEPTH(m), depth + 1);
    return 0;
  }
  return try_only ? EBUSY : 1;
}

static bool take(pthread_mutex_t *m, uint32_t id) {
  uint32_t free_owner = 0;
  if (!SYNC_CAS(OWNER(m), &free_owner, id)) return false;
  CHECK_EQ(SYNC_LOAD(DEPTH(m)), 0); /* the previous owner cleared it */
  SYNC_STORE(DEPTH(m), 1);
  return true;
}

/* Until the mutex is free (or the deadline): 0 or ETIMEDOUT. */
static int wait_free(pthread_mutex_t *m, detsim_thread *self, uint64_t deadline_ns) {
  int rc = self != NULL ? detsim__block(DETSIM_EV_mutex_lock, m, detsim__mutex_free, m, deadline_ns)
                        : detsim__sync_outside_wait(detsim__mutex_free, m, deadline_ns);
  CHECK(rc == 0 || rc == ETIMEDOUT);
  return rc;
}

/* ---- PTHREAD_PRIO_INHERIT ---- */

/* A PI waiter: ready when the mutex is free or was handed to it. */
struct pi_wait {
  pthread_mutex_t *m;
  uint32_t id;
};

static bool pi_ready(void *arg) {
  const struct pi_wait *w = arg;
  uint32_t owner = SYNC_LOAD(OWNER(w->m));
  return owner == 0 || owner == w->id;
}

int detsim__mutex_pi_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id, int type, bool try_only,
                             uint64_t deadline_ns) {
  bool waited = false;
  for (;;) {
    if (take(m, id)) return 0;
    uint32_t owner = SYNC_LOAD(OWNER(m));
    if (owner == id && waited) {
      /* Handed over by the unlock, with its depth of 1. */
      detsim__hb_acquire(OWNER(m));
      return 0;
    }
    if (owner == id) {
      int rc = relock(m, type, try_only);
      if (rc != 1) return rc;
      if (wait_free(m, self, deadline_ns) == ETIMEDOUT) return ETIMEDOUT;
      continue;
    }
    if (try_only) return EBUSY;
    if (self == NULL) {
      if (wait_free(m, NULL, deadline_ns) == ETIMEDOUT) return ETIMEDOUT;
      continue;
    }
    detsim__pi_ever = true;
    struct pi_wait w = {.m = m, .id = id};
    int rc = detsim__block(DETSIM_EV_mutex_lock, m, pi_ready, &w, deadline_ns);
    if (rc == ETIMEDOUT) return ETIMEDOUT;
    CHECK_EQ(rc, 0);
    waited = true;
  }
}

int detsim__mutex_pi_release(pthread_mutex_t *m, detsim_thread *self, uint32_t id, int type) {
  if (SYNC_LOAD(OWNER(m)) != id) return EPERM;
  uint32_t depth = SYNC_LOAD(DEPTH(m));
  CHECK_GE(depth, 1); /* an owned mutex has a depth */
  if (type == PTHREAD_MUTEX_RECURSIVE && depth > 1) {
    SYNC_STORE(DEPTH(m), depth - 1);
    return 0;
  }
  detsim_thread *cands[DETSIM_MAX_THREADS];
  unsigned n = self != NULL ? detsim__sched_blocked_on(m, pi_ready, cands) : 0;
  if (n == 0) {
    SYNC_STORE(DEPTH(m), 0);
    SYNC_STORE(OWNER(m), 0);
    return 0;
  }
  n = detsim__machine_rt_top(cands, n);
  detsim_thread *next = detsim__choose_waiter(cands, n);
  SYNC_STORE(DEPTH(m), 1);
  bool pshared = (SYNC_LOAD(KIND(m)) & DETSIM_MUTEX_KIND_PSHARED) != 0;
  SYNC_STORE(OWNER(m), pshared ? (uint32_t)next->tid : detsim__thread_id(next));
  return 0;
}

detsim_thread *detsim__sync_pi_owner(const detsim_thread *waiter) {
  if (waiter->ready != pi_ready) return detsim__futex_pi_owner(waiter);
  const struct pi_wait *w = waiter->ready_arg;
  uint32_t owner = SYNC_LOAD(OWNER(w->m));
  if (owner == 0 || owner == w->id || (owner & DETSIM_SYNC_OUTSIDE_ID_BIT) != 0) return NULL;
  /* A process-shared one's owner is a virtual tid, maybe another
   * process's (no boost reaches there). */
  if (SYNC_LOAD(KIND(w->m)) & DETSIM_MUTEX_KIND_PSHARED) return detsim__sys_thread_of_tid((pid_t)owner);
  return detsim__thread_by_id(owner);
}

/* ---- PTHREAD_PRIO_PROTECT ---- */

int detsim__mutex_pp_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id, int type, bool try_only,
                             uint64_t deadline_ns) {
  if (SYNC_LOAD(OWNER(m)) == id && type != PTHREAD_MUTEX_NORMAL) return relock(m, type, try_only);
  /* The raise follows the ceiling: set again when the ceiling changed
   * while waiting (pthread_mutex_setprioceiling). */
  int raised = -1;
  for (;;) {
    int ceiling = (int)SYNC_LOAD(CEILING(m));
    if (self != NULL && ceiling != raised) {
      if (detsim__machine_current_priority(self) > ceiling) {
        if (raised != -1) detsim__machine_tpp_change(self, raised, -1);
        return EINVAL;
      }
      int rc = detsim__machine_tpp_change(self, raised, ceiling);
      if (rc != 0) return rc;
      raised = ceiling;
    }
    if (take(m, id)) return 0;
    if (try_only) {
      if (raised != -1) detsim__machine_tpp_change(self, raised, -1);
      return EBUSY;
    }
    if (wait_free(m, self, deadline_ns) == ETIMEDOUT) return ETIMEDOUT; /* raised still, as glibc */
  }
}

int detsim__mutex_pp_release(pthread_mutex_t *m, detsim_thread *self, uint32_t id, int type) {
  uint32_t owner = SYNC_LOAD(OWNER(m));
  if (type != PTHREAD_MUTEX_NORMAL && owner != id) return EPERM;
  if (type == PTHREAD_MUTEX_RECURSIVE) {
    uint32_t depth = SYNC_LOAD(DEPTH(m));
    CHECK_GE(depth, 1); /* an owned mutex has a depth */
    if (depth > 1) {
      SYNC_STORE(DEPTH(m), depth - 1);
      return 0;
    }
  }
  /* A normal one is unlocked by whoever calls, owner or not, locked or
   * not, and the caller gives a raise back, as glibc. */
  SYNC_STORE(DEPTH(m), 0);
  SYNC_STORE(OWNER(m), 0);
  return self != NULL ? detsim__machine_tpp_change(self, (int)SYNC_LOAD(CEILING(m)), -1) : 0;
}

/* ---- ceilings ---- */

DETSIM_EXPORT int __detsim_pthread_mutex_setprioceiling(pthread_mutex_t *m, int prioceiling, int *old_ceiling) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_mutex_lock, m);
  uint32_t kind = SYNC_LOAD(KIND(m));
  if ((kind & DETSIM_MUTEX_KIND_PP) == 0 || kind == 0xffffffffu) return EINVAL; /* not one, or destroyed */
  if (prioceiling < DETSIM_RT_PRIO_MIN || prioceiling > DETSIM_RT_PRIO_MAX) return EINVAL;
  uint32_t id = detsim__sync_caller_id(self);
  int type = (int)(kind & DETSIM_MUTEX_TYPE_MASK);
  bool mine = false;
  if (SYNC_LOAD(OWNER(m)) == id) {
    if (type == PTHREAD_MUTEX_ERRORCHECK) return EDEADLK;
    mine = type == PTHREAD_MUTEX_RECURSIVE;
  }
  if (!mine)
    while (SYNC_LOAD(OWNER(m)) != 0) wait_free(m, self, DETSIM_NO_DEADLINE);
  int old = (int)SYNC_LOAD(CEILING(m));
  if (mine && self != NULL) {
    int rc = detsim__machine_tpp_change(self, old, prioceiling);
    if (rc != 0) return rc;
  }
  if (old_ceiling != NULL) *old_ceiling = old;
  SYNC_STORE(CEILING(m), (uint32_t)prioceiling);
  if (mine && self != NULL && detsim__rt_ever) detsim__sched_rt_point(self); /* a lowered owner may give way */
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_mutex_setprioceiling)

DETSIM_EXPORT int __detsim_pthread_mutex_getprioceiling(const pthread_mutex_t *m, int *prioceiling) {
  uint32_t kind = SYNC_LOAD(KIND(m));
  if ((kind & DETSIM_MUTEX_KIND_PP) == 0 || kind == 0xffffffffu) return EINVAL;
  *prioceiling = (int)SYNC_LOAD(CEILING(m));
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_mutex_getprioceiling)
