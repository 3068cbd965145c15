/* Reader-writer locks.
 *
 * One state word holds the write bit and the number of read locks, so one
 * CAS takes either kind of lock, for simulated and outside callers alike.
 * The writer's id (glibc's __cur_writer) makes a writer's relock EDEADLK.
 * Read locks are not owned: as in glibc, a reader that asks for the write
 * lock waits for itself (a deadlock the scheduler reports).
 *
 * Preference as glibc: PTHREAD_RWLOCK_PREFER_READER_NP (the default) and
 * PREFER_WRITER_NP let readers in while writers wait;
 * PREFER_WRITER_NONRECURSIVE_NP keeps new readers out while a (simulated)
 * writer waits.
 *
 * Errors: rdlock or wrlock by the write owner EDEADLK, try* EBUSY, timed*
 * ETIMEDOUT, EINVAL for a bad timespec or clock, EAGAIN past
 * DETSIM_RWLOCK_READERS_MAX read locks, unlock of a lock the caller does not
 * hold EPERM, destroy of a held lock EBUSY (glibc returns 0 for the last
 * two; POSIX allows these errors).
 */
#include <errno.h>
#include <string.h>

#include "core/core.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "sync/sync.h"

#define STATE(rw) detsim__sync_word((rw), DETSIM_RWLOCK_STATE)
#define WWAIT(rw) detsim__sync_word((rw), DETSIM_RWLOCK_WWAIT)
#define WRITER(rw) detsim__sync_word((rw), DETSIM_RWLOCK_WRITER)
#define FLAGS(rw) detsim__sync_word((rw), DETSIM_RWLOCK_FLAGS)

#define WRITE_BIT 0x80000000u
#define READERS_MASK 0x7fffffffu
_Static_assert(DETSIM_RWLOCK_READERS_MAX == READERS_MASK, "readers fill the bits below the write bit");

static bool prefers_writers(const pthread_rwlock_t *rw) {
  return SYNC_LOAD(FLAGS(rw)) == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;
}

static bool read_ready(void *arg) {
  pthread_rwlock_t *rw = arg;
  if ((SYNC_LOAD(STATE(rw)) & WRITE_BIT) != 0) return false;
  return !prefers_writers(rw) || SYNC_LOAD(WWAIT(rw)) == 0;
}

static bool write_ready(void *arg) { return SYNC_LOAD(STATE((pthread_rwlock_t *)arg)) == 0; }

static int rwlock_wait(pthread_rwlock_t *rw, const detsim_thread *self, bool writer, uint64_t deadline) {
  if (self == NULL) return detsim__sync_outside_wait(writer ? write_ready : read_ready, rw, deadline);
  if (!writer) return detsim__block(DETSIM_EV_rwlock_rdlock, rw, read_ready, rw, deadline);
  /* Only simulated writers are counted: the count is changed by the baton
   * holder alone, and read by the predicates the scheduler evaluates. */
  __atomic_add_fetch(WWAIT(rw), 1, __ATOMIC_ACQ_REL);
  int rc = detsim__block(DETSIM_EV_rwlock_wrlock, rw, write_ready, rw, deadline);
  uint32_t before = __atomic_fetch_sub(WWAIT(rw), 1, __ATOMIC_ACQ_REL);
  CHECK_GE(before, 1); /* we counted ourselves */
  return rc;
}

static int rwlock_lock(pthread_rwlock_t *rw, bool writer, enum detsim_lock_mode mode, clockid_t clock,
                       const struct timespec *abstime) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(writer ? DETSIM_EV_rwlock_wrlock : DETSIM_EV_rwlock_rdlock, rw);
  uint32_t id = detsim__sync_caller_id(self);
  uint64_t deadline = DETSIM_NO_DEADLINE;
  if (mode == DETSIM_LOCK_TIMED) {
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) return EINVAL;
    if (abstime == NULL) return EINVAL;
    int rc = detsim__sync_deadline(clock, abstime, &deadline);
    if (rc != 0) return rc;
  }
  for (;;) {
    uint32_t state = SYNC_LOAD(STATE(rw));
    if ((state & WRITE_BIT) != 0) {
      /* glibc: the write owner's try* is EBUSY, its (timed) lock EDEADLK. */
      if (mode != DETSIM_LOCK_TRY && SYNC_LOAD(WRITER(rw)) == id) return EDEADLK;
    } else if (writer) {
      if (state == 0) {
        if (SYNC_CAS(STATE(rw), &state, WRITE_BIT)) {
          CHECK_EQ(SYNC_LOAD(WRITER(rw)), 0); /* the last writer cleared its id */
          SYNC_STORE(WRITER(rw), id);
          return 0;
        }
        continue; /* changed under us (an outside caller): look again */
      }
    } else if (!prefers_writers(rw) || SYNC_LOAD(WWAIT(rw)) == 0) {
      if ((state & READERS_MASK) == DETSIM_RWLOCK_READERS_MAX) return EAGAIN;
      if (SYNC_CAS(STATE(rw), &state, state + 1)) return 0;
      continue;
    }
    if (mode == DETSIM_LOCK_TRY) return EBUSY;
    int rc = rwlock_wait(rw, self, writer, deadline);
    if (rc == ETIMEDOUT) return ETIMEDOUT;
    CHECK_EQ(rc, 0);
  }
}

static int rwlock_unlock(pthread_rwlock_t *rw) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_rwlock_unlock, rw);
  uint32_t id = detsim__sync_caller_id(self);
  uint32_t state = SYNC_LOAD(STATE(rw));
  if ((state & WRITE_BIT) != 0) {
    CHECK_EQ(state & READERS_MASK, 0); /* a written lock has no readers */
    if (SYNC_LOAD(WRITER(rw)) != id) return EPERM;
    SYNC_STORE(WRITER(rw), 0);
    SYNC_STORE(STATE(rw), 0);
    return 0;
  }
  /* Read locks: while any is held no writer gets in, so only other readers
   * change the word under us. */
  for (;;) {
    if ((state & READERS_MASK) == 0) return EPERM;
    CHECK_EQ(state & WRITE_BIT, 0);
    if (SYNC_CAS(STATE(rw), &state, state - 1)) return 0;
  }
}

DETSIM_EXPORT int __detsim_pthread_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *attr) {
  int kind = PTHREAD_RWLOCK_DEFAULT_NP;
  if (attr != NULL && REAL(pthread_rwlockattr_getkind_np)(attr, &kind) != 0) return EINVAL;
  if (kind != PTHREAD_RWLOCK_PREFER_READER_NP && kind != PTHREAD_RWLOCK_PREFER_WRITER_NP &&
      kind != PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP)
    return EINVAL;
  memset(rw, 0, sizeof *rw);
  SYNC_STORE(FLAGS(rw), (uint32_t)kind);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_init)

DETSIM_EXPORT int __detsim_pthread_rwlock_destroy(pthread_rwlock_t *rw) {
  return SYNC_LOAD(STATE(rw)) != 0 ? EBUSY : 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_destroy)

DETSIM_EXPORT int __detsim_pthread_rwlock_rdlock(pthread_rwlock_t *rw) {
  return rwlock_lock(rw, false, DETSIM_LOCK_BLOCK, CLOCK_REALTIME, NULL);
}
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_rdlock)

DETSIM_EXPORT int __detsim_pthread_rwlock_tryrdlock(pthread_rwlock_t *rw) {
  return rwlock_lock(rw, false, DETSIM_LOCK_TRY, CLOCK_REALTIME, NULL);
}
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_tryrdlock)

DETSIM_EXPORT int __detsim_pthread_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abstime) {
  return rwlock_lock(rw, false, DETSIM_LOCK_TIMED, CLOCK_REALTIME, abstime);
}
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_timedrdlock)

DETSIM_EXPORT int __detsim_pthread_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clock,
                                                      const struct timespec *abstime) {
  return rwlock_lock(rw, false, DETSIM_LOCK_TIMED, clock, abstime);
}
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_clockrdlock)

DETSIM_EXPORT int __detsim_pthread_rwlock_wrlock(pthread_rwlock_t *rw) {
  return rwlock_lock(rw, true, DETSIM_LOCK_BLOCK, CLOCK_REALTIME, NULL);
}
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_wrlock)

DETSIM_EXPORT int __detsim_pthread_rwlock_trywrlock(pthread_rwlock_t *rw) {
  return rwlock_lock(rw, true, DETSIM_LOCK_TRY, CLOCK_REALTIME, NULL);
}
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_trywrlock)

DETSIM_EXPORT int __detsim_pthread_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abstime) {
  return rwlock_lock(rw, true, DETSIM_LOCK_TIMED, CLOCK_REALTIME, abstime);
}
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_timedwrlock)

DETSIM_EXPORT int __detsim_pthread_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clock,
                                                      const struct timespec *abstime) {
  return rwlock_lock(rw, true, DETSIM_LOCK_TIMED, clock, abstime);
}
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_clockwrlock)

DETSIM_EXPORT int __detsim_pthread_rwlock_unlock(pthread_rwlock_t *rw) { return rwlock_unlock(rw); }
DETSIM_INTERCEPT_ALIAS(pthread_rwlock_unlock)
