/* Robust and process-shared mutexes, and the way into the protocol ones
 * (sync_mutex_prio.c): the slow path of sync_mutex.c's lock and unlock.
 *
 * Robust (PTHREAD_MUTEX_ROBUST), as glibc 2.36 on Linux, of every type and
 * with PTHREAD_PRIO_INHERIT:
 *  - each thread keeps the robust mutexes it holds in a list (through the
 *    mutexes' __list words, as glibc's robust list); when the thread ends
 *    (its exit, or the end of its process) every one of them is given up
 *    with its owner dead, as the kernel walks the list: the mutex is free,
 *    its waiters wake (a PRIO_INHERIT one goes to its top waiter), and the
 *    next locker gets EOWNERDEAD, holding it (depth 1);
 *  - pthread_mutex_consistent makes it usable again (EINVAL unless it is
 *    robust and in that state); unlocked without it, it becomes not
 *    recoverable: every lock and trylock then gives ENOTRECOVERABLE (a
 *    waiter wakes and gets it too), and the unlock itself returns 0, or
 *    for a recursive one still held ENOTRECOVERABLE;
 *  - unlock by a thread that does not own it is EPERM for every type;
 *    trylock by the owner of an errorcheck one is EDEADLK (not EBUSY), a
 *    normal one relocked by its owner waits for ever (the scheduler reports
 *    the deadlock), a recursive one counts up.
 *  A robust PRIO_PROTECT mutex cannot be made (ENOTSUP, as glibc).
 *
 * Process-shared (PTHREAD_PROCESS_SHARED): the owner word holds the
 * owner's virtual tid, unique in the world, so a mutex in memory shared
 * between the processes of a run (a MAP_SHARED mapping across fork) has
 * one owner for all of them; a change that may let another process's
 * waiter go posts the world (detsim__world_touch), whose idle processes
 * look at their waits again.  A process that ends gives up the robust
 * mutexes its threads hold (detsim__mutex_robust_process_died).
 */
#include <errno.h>

#include "core/core.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "sync/sync.h"
#include "world/world.h"

#define OWNER(m) detsim__sync_word((m), DETSIM_MUTEX_OWNER)
#define DEPTH(m) detsim__sync_word((m), DETSIM_MUTEX_DEPTH)
#define STATE(m) detsim__sync_word((m), DETSIM_MUTEX_ROBUST)
#define KIND(m) detsim__sync_word((m), DETSIM_MUTEX_KIND)

typedef pthread_mutex_t *__attribute__((may_alias)) mutex_link;
#define PREV(m) (*(mutex_link *)((char *)(m) + DETSIM_MUTEX_LIST_PREV))
#define NEXT(m) (*(mutex_link *)((char *)(m) + DETSIM_MUTEX_LIST_NEXT))

_Static_assert(offsetof(pthread_mutex_t, __data.__list.__prev) == DETSIM_MUTEX_LIST_PREV, "glibc's robust list");
_Static_assert(offsetof(pthread_mutex_t, __data.__list.__next) == DETSIM_MUTEX_LIST_NEXT, "glibc's robust list");
_Static_assert(offsetof(pthread_mutex_t, __data.__nusers) == DETSIM_MUTEX_ROBUST, "the robust state word");

/* ---- the owner's list ---- */

static void list_add(detsim_thread *self, pthread_mutex_t *m) {
  if (self == NULL) return; /* outside the simulation no thread ends */
  pthread_mutex_t *head = self->robust_held;
  PREV(m) = NULL;
  NEXT(m) = head;
  if (head != NULL) PREV(head) = m;
  self->robust_held = m;
}

static void list_remove(detsim_thread *self, pthread_mutex_t *m) {
  if (self == NULL) return;
  pthread_mutex_t *prev = PREV(m), *next = NEXT(m);
  if (prev != NULL) NEXT(prev) = next;
  else {
    CHECK(self->robust_held == m); /* a held robust mutex is on its owner's list */
    self->robust_held = next;
  }
  if (next != NULL) PREV(next) = prev;
  PREV(m) = NEXT(m) = NULL;
}

/* ---- the underlying lock ---- */

/* Another process's waiter may go now. */
static void changed(uint32_t kind) {
  if ((kind & DETSIM_MUTEX_KIND_PSHARED) && detsim__in_world && detsim__self() != NULL) detsim__world_touch();
}

static int base_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id, uint32_t kind, int type,
                        bool try_only, uint64_t deadline_ns) {
  if (kind & DETSIM_MUTEX_KIND_PI) return detsim__mutex_pi_acquire(m, self, id, type, try_only, deadline_ns);
  if (kind & DETSIM_MUTEX_KIND_PP) return detsim__mutex_pp_acquire(m, self, id, type, try_only, deadline_ns);
  return detsim__mutex_plain_acquire(m, self, id, type, try_only, deadline_ns);
}

static int base_release(pthread_mutex_t *m, detsim_thread *self, uint32_t id, uint32_t kind, int type) {
  int rc = (kind & DETSIM_MUTEX_KIND_PI)   ? detsim__mutex_pi_release(m, self, id, type)
           : (kind & DETSIM_MUTEX_KIND_PP) ? detsim__mutex_pp_release(m, self, id, type)
                                           : detsim__mutex_plain_release(m, id, type);
  changed(kind);
  return rc;
}

/* Gives the robust mutex up entirely (whatever its depth), as its owner. */
static void give_up(pthread_mutex_t *m, detsim_thread *self, uint32_t id, uint32_t kind) {
  SYNC_STORE(DEPTH(m), 1);
  int rc = base_release(m, self, id, kind, PTHREAD_MUTEX_NORMAL);
  CHECK_EQ(rc, 0); /* its owner gives it up */
}

/* The id of the caller in a process-shared mutex: its virtual tid. */
static uint32_t shared_id(detsim_thread *self, uint32_t id) {
  if (self == NULL) return id;
  uint32_t tid = (uint32_t)self->tid;
  CHECK(tid != 0 && tid < DETSIM_SYNC_OUTSIDE_ID_BIT);
  return tid;
}

/* ---- lock and unlock ---- */

static int robust_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id, uint32_t kind, int type,
                          bool try_only, uint64_t deadline_ns) {
  if (SYNC_LOAD(STATE(m)) == DETSIM_ROBUST_NOT_RECOVERABLE) return ENOTRECOVERABLE;
  /* glibc's robust errorcheck trylock by the owner is EDEADLK. */
  if (SYNC_LOAD(OWNER(m)) == id && type == PTHREAD_MUTEX_ERRORCHECK) return EDEADLK;
  bool held = SYNC_LOAD(OWNER(m)) == id;
  int rc = base_acquire(m, self, id, kind, type, try_only, deadline_ns);
  if (rc != 0 || held) return rc; /* a recursive relock only counts */
  switch (SYNC_LOAD(STATE(m))) {
  case DETSIM_ROBUST_NOT_RECOVERABLE:
    /* It became so while this thread waited: as glibc, give it up again
     * (the next waiter learns the same) and say so. */
    give_up(m, self, id, kind);
    return ENOTRECOVERABLE;
  case DETSIM_ROBUST_OWNER_DIED:
    SYNC_STORE(STATE(m), DETSIM_ROBUST_INCONSISTENT);
    list_add(self, m);
    return EOWNERDEAD;
  default:
    list_add(self, m);
    return 0;
  }
}

static int robust_release(pthread_mutex_t *m, detsim_thread *self, uint32_t id, uint32_t kind, int type) {
  if (SYNC_LOAD(OWNER(m)) != id) return EPERM;
  uint32_t depth = SYNC_LOAD(DEPTH(m));
  CHECK_GE(depth, 1); /* an owned mutex has a depth */
  if (SYNC_LOAD(STATE(m)) == DETSIM_ROBUST_INCONSISTENT) {
    if (type == PTHREAD_MUTEX_RECURSIVE && depth > 1) {
      SYNC_STORE(DEPTH(m), depth - 1);
      return ENOTRECOVERABLE; /* glibc: still held, and no longer usable */
    }
    SYNC_STORE(STATE(m), DETSIM_ROBUST_NOT_RECOVERABLE);
  } else if (type == PTHREAD_MUTEX_RECURSIVE && depth > 1) {
    SYNC_STORE(DEPTH(m), depth - 1);
    return 0;
  }
  list_remove(self, m);
  give_up(m, self, id, kind);
  return 0;
}

int detsim__mutex_slow_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id, uint32_t kind, int type,
                               bool try_only, uint64_t deadline_ns) {
  if (kind & DETSIM_MUTEX_KIND_PSHARED) id = shared_id(self, id);
  if (kind & DETSIM_MUTEX_KIND_ROBUST) return robust_acquire(m, self, id, kind, type, try_only, deadline_ns);
  return base_acquire(m, self, id, kind, type, try_only, deadline_ns);
}

int detsim__mutex_slow_release(pthread_mutex_t *m, detsim_thread *self, uint32_t id, uint32_t kind, int type) {
  if (kind & DETSIM_MUTEX_KIND_PSHARED) id = shared_id(self, id);
  if (kind & DETSIM_MUTEX_KIND_ROBUST) return robust_release(m, self, id, kind, type);
  return base_release(m, self, id, kind, type);
}

/* ---- owners that die ---- */

void detsim__mutex_robust_owner_died(detsim_thread *t) {
  while (t->robust_held != NULL) {
    pthread_mutex_t *m = t->robust_held;
    uint32_t kind = SYNC_LOAD(KIND(m));
    uint32_t id = (kind & DETSIM_MUTEX_KIND_PSHARED) ? (uint32_t)t->tid : detsim__thread_id(t);
    CHECK_EQ(SYNC_LOAD(OWNER(m)), id); /* a mutex on a thread's robust list is the thread's */
    list_remove(t, m);
    detsim__event(DETSIM_EV_mutex_owner_died, t, m, 0, detsim__thread_id(t));
    SYNC_STORE(STATE(m), DETSIM_ROBUST_OWNER_DIED);
    give_up(m, t, id, kind);
  }
}

void detsim__mutex_robust_process_died(void) {
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if (t->state != DETSIM_T_FREE && t->robust_held != NULL) detsim__mutex_robust_owner_died(t);
  }
}

/* ---- consistent ---- */

DETSIM_EXPORT int __detsim_pthread_mutex_consistent(pthread_mutex_t *m) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_mutex_lock, m);
  uint32_t kind = SYNC_LOAD(KIND(m));
  if (kind == 0xffffffffu || (kind & DETSIM_MUTEX_KIND_ROBUST) == 0) return EINVAL;
  if (SYNC_LOAD(STATE(m)) != DETSIM_ROBUST_INCONSISTENT) return EINVAL;
  SYNC_STORE(STATE(m), DETSIM_ROBUST_CONSISTENT);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_mutex_consistent)
