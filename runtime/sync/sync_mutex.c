/* pthread mutexes: normal (and default/adaptive), recursive and errorcheck;
 * the priority protocols (PTHREAD_PRIO_INHERIT, PTHREAD_PRIO_PROTECT) are
 * sync_mutex_prio.c's, entered from acquire and release here.
 *
 * The state is in the mutex itself (sync.h): an owner word that one CAS
 * takes, a depth word only the owner changes, and glibc's kind word, which
 * PTHREAD_MUTEX_INITIALIZER, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP and
 * PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP set without an init call.
 *
 * As glibc 2.36:
 *  - a normal mutex relocked by its owner deadlocks (the scheduler reports
 *    it); timedlock then times out; unlock by a non-owner unlocks it, and
 *    unlock of an unlocked one returns 0;
 *  - errorcheck: relock EDEADLK, trylock by the owner EBUSY, unlock by a
 *    non-owner (or unlocked) EPERM;
 *  - recursive: the owner's lock and trylock count up (EAGAIN past
 *    DETSIM_MUTEX_RECURSION_MAX), unlock by a non-owner EPERM;
 *  - destroy of a locked mutex EBUSY; a destroyed mutex gives EINVAL.
 * Unlike glibc, timedlock checks its timespec (EINVAL) even when the mutex
 * is free; POSIX allows both.
 */
#include <errno.h>
#include <string.h>

#include "core/core.h"
#include "intercept/intercept.h"
#include "machine/machine.h"
#include "sched/sched.h"
#include "sync/sync.h"

#define OWNER(m) detsim__sync_word((m), DETSIM_MUTEX_OWNER)
#define DEPTH(m) detsim__sync_word((m), DETSIM_MUTEX_DEPTH)
#define KIND(m) detsim__sync_word((m), DETSIM_MUTEX_KIND)

/* The kind word after destroy, as glibc. */
#define MUTEX_KIND_DESTROYED 0xffffffffu

/* The type (PTHREAD_MUTEX_*_NP) of a live mutex of kind word `kind`, -1
 * for a destroyed one.  glibc keeps flags above the low two bits (the
 * protocols among them); any kind we do not know behaves as its type. */
static int kind_type(uint32_t kind) {
  if (kind == MUTEX_KIND_DESTROYED) return -1;
  int type = (int)(kind & DETSIM_MUTEX_TYPE_MASK);
  return type == PTHREAD_MUTEX_ADAPTIVE_NP ? PTHREAD_MUTEX_NORMAL : type;
}

bool detsim__mutex_free(void *arg) { return SYNC_LOAD(OWNER(arg)) == 0; }

int detsim__mutex_init_type(pthread_mutex_t *m, int type) {
  if (type != PTHREAD_MUTEX_NORMAL && type != PTHREAD_MUTEX_RECURSIVE &&
      type != PTHREAD_MUTEX_ERRORCHECK && type != PTHREAD_MUTEX_ADAPTIVE_NP)
    return EINVAL;
  memset(m, 0, sizeof *m);
  SYNC_STORE(KIND(m), (uint32_t)type);
  return 0;
}

/* The plain path: a CAS on the owner word, a wait for it to be free. */
static inline __attribute__((always_inline)) int plain_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id,
                                                               int type, bool try_only, uint64_t deadline_ns) {
  for (;;) {
    uint32_t owner = 0;
    if (SYNC_CAS(OWNER(m), &owner, id)) {
      /* The previous owner cleared the depth before it released. */
      CHECK_EQ(SYNC_LOAD(DEPTH(m)), 0);
      SYNC_STORE(DEPTH(m), 1);
      return 0;
    }
    CHECK_NE(owner, 0);
    if (owner == id) {
      uint32_t depth = SYNC_LOAD(DEPTH(m));
      CHECK_GE(depth, 1); /* an owned mutex has a depth */
      if (type == PTHREAD_MUTEX_RECURSIVE) {
        CHECK_LE(depth, DETSIM_MUTEX_RECURSION_MAX);
        if (depth == DETSIM_MUTEX_RECURSION_MAX) return EAGAIN;
        SYNC_STORE(DEPTH(m), depth + 1);
        return 0;
      }
      if (try_only) return EBUSY;
      if (type == PTHREAD_MUTEX_ERRORCHECK) return EDEADLK;
      /* A normal mutex relocked by its owner waits for itself: a deadlock
       * the scheduler reports (or a timeout), as in glibc. */
    }
    if (try_only) return EBUSY;
    int rc = self != NULL ? detsim__block(DETSIM_EV_mutex_lock, m, detsim__mutex_free, m, deadline_ns)
                          : detsim__sync_outside_wait(detsim__mutex_free, m, deadline_ns);
    if (rc == ETIMEDOUT) return ETIMEDOUT;
    CHECK_EQ(rc, 0);
  }
}

int detsim__mutex_plain_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id, int type, bool try_only,
                                uint64_t deadline_ns) {
  return plain_acquire(m, self, id, type, try_only, deadline_ns);
}

/* The lock and unlock paths inline these into their interceptors (a call
 * less per lock and unlock); cond wait calls them through the functions. */
static inline __attribute__((always_inline)) int acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id,
                                                         bool try_only, uint64_t deadline_ns) {
  uint32_t kind = SYNC_LOAD(KIND(m));
  int type = kind_type(kind);
  if (type < 0) return EINVAL;
  if (__builtin_expect((kind & DETSIM_MUTEX_KIND_SLOW) != 0, 0))
    return detsim__mutex_slow_acquire(m, self, id, kind, type, try_only, deadline_ns);
  return plain_acquire(m, self, id, type, try_only, deadline_ns);
}

int detsim__mutex_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id,
                          bool try_only, uint64_t deadline_ns) {
  return acquire(m, self, id, try_only, deadline_ns);
}

static inline __attribute__((always_inline)) int plain_release(pthread_mutex_t *m, uint32_t id, int type) {
  uint32_t owner = SYNC_LOAD(OWNER(m));
  if (owner != id) {
    if (type != PTHREAD_MUTEX_NORMAL) return EPERM;
    if (owner == 0) return 0; /* glibc: unlocking an unlocked normal mutex "works" */
  }
  uint32_t depth = SYNC_LOAD(DEPTH(m));
  if (owner == id) CHECK_GE(depth, 1); /* an owned mutex has a depth */
  if (type == PTHREAD_MUTEX_RECURSIVE && depth > 1) {
    SYNC_STORE(DEPTH(m), depth - 1);
    return 0;
  }
  SYNC_STORE(DEPTH(m), 0);
  SYNC_STORE(OWNER(m), 0);
  return 0;
}

int detsim__mutex_plain_release(pthread_mutex_t *m, uint32_t id, int type) { return plain_release(m, id, type); }

static inline __attribute__((always_inline)) int release(pthread_mutex_t *m, uint32_t id) {
  uint32_t kind = SYNC_LOAD(KIND(m));
  int type = kind_type(kind);
  if (type < 0) return EINVAL;
  if (__builtin_expect((kind & DETSIM_MUTEX_KIND_SLOW) != 0, 0))
    return detsim__mutex_slow_release(m, detsim__self(), id, kind, type);
  return plain_release(m, id, type);
}

int detsim__mutex_release(pthread_mutex_t *m, uint32_t id) { return release(m, id); }

/* A protocol mutex changed priorities (a PI hand-over, a ceiling left):
 * a thread now above the caller runs at once, as the kernel switches on
 * the system call's way out. */
static int switch_after(const pthread_mutex_t *m, detsim_thread *self, int rc) {
  if (self != NULL && detsim__rt_ever && (SYNC_LOAD(KIND(m)) & DETSIM_MUTEX_KIND_PROTOCOLS) != 0)
    detsim__sched_rt_point(self);
  return rc;
}

int detsim__mutex_lock(pthread_mutex_t *m, enum detsim_lock_mode mode, clockid_t clock,
                       const struct timespec *abstime) {
  detsim_thread *self = detsim__self();
  if (self != NULL)
    detsim__yield(mode == DETSIM_LOCK_TRY ? DETSIM_EV_mutex_trylock : DETSIM_EV_mutex_lock, m);
  uint64_t deadline = DETSIM_NO_DEADLINE;
  if (mode == DETSIM_LOCK_TIMED) {
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) return EINVAL;
    if (abstime == NULL) return EINVAL;
    int rc = detsim__sync_deadline(clock, abstime, &deadline);
    if (rc != 0) return rc;
  }
  int rc = acquire(m, self, detsim__sync_caller_id(self), mode == DETSIM_LOCK_TRY, deadline);
  /* A PRIO_PROTECT lock that failed gave its raise back. */
  return rc != 0 ? switch_after(m, self, rc) : 0;
}

int detsim__mutex_unlock(pthread_mutex_t *m) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_mutex_unlock, m);
  return switch_after(m, self, release(m, detsim__sync_caller_id(self)));
}

int detsim__mutex_destroy(pthread_mutex_t *m) {
  if (kind_type(SYNC_LOAD(KIND(m))) < 0) return EINVAL;
  if (SYNC_LOAD(OWNER(m)) != 0) return EBUSY;
  SYNC_STORE(KIND(m), MUTEX_KIND_DESTROYED);
  return 0;
}

DETSIM_EXPORT int __detsim_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr) {
  return detsim__mutex_init_attr(m, attr);
}
DETSIM_INTERCEPT_ALIAS(pthread_mutex_init)

DETSIM_EXPORT int __detsim_pthread_mutex_destroy(pthread_mutex_t *m) { return detsim__mutex_destroy(m); }
DETSIM_INTERCEPT_ALIAS(pthread_mutex_destroy)

DETSIM_EXPORT int __detsim_pthread_mutex_lock(pthread_mutex_t *m) {
  return detsim__mutex_lock(m, DETSIM_LOCK_BLOCK, CLOCK_REALTIME, NULL);
}
DETSIM_INTERCEPT_ALIAS(pthread_mutex_lock)

DETSIM_EXPORT int __detsim_pthread_mutex_trylock(pthread_mutex_t *m) {
  return detsim__mutex_lock(m, DETSIM_LOCK_TRY, CLOCK_REALTIME, NULL);
}
DETSIM_INTERCEPT_ALIAS(pthread_mutex_trylock)

DETSIM_EXPORT int __detsim_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime) {
  return detsim__mutex_lock(m, DETSIM_LOCK_TIMED, CLOCK_REALTIME, abstime);
}
DETSIM_INTERCEPT_ALIAS(pthread_mutex_timedlock)

DETSIM_EXPORT int __detsim_pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
                                                   const struct timespec *abstime) {
  return detsim__mutex_lock(m, DETSIM_LOCK_TIMED, clock, abstime);
}
DETSIM_INTERCEPT_ALIAS(pthread_mutex_clocklock)

DETSIM_EXPORT int __detsim_pthread_mutex_unlock(pthread_mutex_t *m) { return detsim__mutex_unlock(m); }
DETSIM_INTERCEPT_ALIAS(pthread_mutex_unlock)
