/* Semaphores (sem_init/sem_wait/sem_post…); named ones are opened by
 * sync_sem_named.c.
 *
 * The value word is taken down with a CAS; a simulated waiter at zero
 * blocks until it is positive, and which of several waiters gets a post is
 * the scheduler's seeded choice.  Errors as glibc (-1 with errno): sem_init
 * EINVAL above SEM_VALUE_MAX, sem_post EOVERFLOW at it, sem_trywait EAGAIN
 * at zero, sem_timedwait/sem_clockwait ETIMEDOUT, and EINVAL for a bad
 * timespec (checked first, as glibc) or clock.
 */
#include <errno.h>
#include <semaphore.h>
#include <string.h>

#include "sched/sched.h"
#include "core/core.h"
#include "sync/sync.h"
#include "world/world.h"

#define VALUE(s) detsim__sync_word((s), DETSIM_SEM_VALUE)
#define SHARED(s) detsim__sync_word((s), DETSIM_SEM_SHARED)

static bool sem_positive(void *arg) { return SYNC_LOAD(VALUE(arg)) > 0; }

static int fail(int err) {
  errno = err;
  return -1;
}

static int sem_take(sem_t *s, enum detsim_lock_mode mode, clockid_t clock, const struct timespec *abstime) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_sem_wait, s);
  uint64_t deadline = DETSIM_NO_DEADLINE;
  if (mode == DETSIM_LOCK_TIMED) {
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) return fail(EINVAL);
    if (abstime == NULL) return fail(EINVAL);
    int rc = detsim__sync_deadline(clock, abstime, &deadline);
    if (rc != 0) return fail(rc);
  }
  for (;;) {
    uint32_t value = SYNC_LOAD(VALUE(s));
    CHECK_LE(value, DETSIM_SEM_VALUE_MAX); /* posts stop at SEM_VALUE_MAX */
    if (value > 0) {
      if (SYNC_CAS(VALUE(s), &value, value - 1)) return 0;
      continue;
    }
    if (mode == DETSIM_LOCK_TRY) return fail(EAGAIN);
    int rc = self != NULL ? detsim__block_intr(DETSIM_EV_sem_wait, s, sem_positive, s, deadline)
                          : detsim__sync_outside_wait(sem_positive, s, deadline);
    /* As Linux: sem_wait's futex wait restarts after SA_RESTART handlers;
     * the timed waits (an absolute futex timeout) give EINTR whatever
     * SA_RESTART says. */
    if (rc == EINTR && mode == DETSIM_LOCK_BLOCK && detsim__restartable()) continue;
    if (rc == ETIMEDOUT || rc == EINTR) return fail(rc);
    CHECK_EQ(rc, 0);
  }
}

DETSIM_EXPORT int __detsim_sem_init(sem_t *s, int pshared, unsigned value) {
  if (value > DETSIM_SEM_VALUE_MAX) return fail(EINVAL);
  memset(s, 0, sizeof *s);
  SYNC_STORE(VALUE(s), value);
  if (pshared) SYNC_STORE(SHARED(s), 1);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sem_init)

DETSIM_EXPORT int __detsim_sem_destroy(sem_t *s) {
  (void)s;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sem_destroy)

DETSIM_EXPORT int __detsim_sem_wait(sem_t *s) {
  DETSIM_CANCEL_POINT();
  return sem_take(s, DETSIM_LOCK_BLOCK, CLOCK_REALTIME, NULL);
}
DETSIM_INTERCEPT_ALIAS(sem_wait)

DETSIM_EXPORT int __detsim_sem_trywait(sem_t *s) { return sem_take(s, DETSIM_LOCK_TRY, CLOCK_REALTIME, NULL); }
DETSIM_INTERCEPT_ALIAS(sem_trywait)

DETSIM_EXPORT int __detsim_sem_timedwait(sem_t *s, const struct timespec *abstime) {
  DETSIM_CANCEL_POINT();
  return sem_take(s, DETSIM_LOCK_TIMED, CLOCK_REALTIME, abstime);
}
DETSIM_INTERCEPT_ALIAS(sem_timedwait)

DETSIM_EXPORT int __detsim_sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *abstime) {
  DETSIM_CANCEL_POINT();
  return sem_take(s, DETSIM_LOCK_TIMED, clock, abstime);
}
DETSIM_INTERCEPT_ALIAS(sem_clockwait)

DETSIM_EXPORT int __detsim_sem_post(sem_t *s) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_sem_post, s);
  uint32_t value = SYNC_LOAD(VALUE(s));
  for (;;) {
    CHECK_LE(value, DETSIM_SEM_VALUE_MAX); /* posts stop at SEM_VALUE_MAX */
    if (value == DETSIM_SEM_VALUE_MAX) return fail(EOVERFLOW);
    if (SYNC_CAS(VALUE(s), &value, value + 1)) break;
  }
  /* Another process may wait on a shared one (in shared memory). */
  if (SYNC_LOAD(SHARED(s)) && detsim__in_world && self != NULL) detsim__world_touch();
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sem_post)

DETSIM_EXPORT int __detsim_sem_getvalue(sem_t *restrict s, int *restrict sval) {
  *sval = (int)SYNC_LOAD(VALUE(s));
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sem_getvalue)
