/* Condition variables on the scheduler's wait queues.
 *
 * A waiter releases the mutex, waits in detsim__wait(cond) until a
 * detsim__wake_one/all(cond) picks it or its deadline passes, then takes the
 * mutex again (blocking as a lock does) and returns 0 or ETIMEDOUT.  Releasing
 * and starting to wait happen with no yield point between them, so no signal
 * can fall in the gap.  A signal or broadcast with no waiter is lost, as
 * POSIX says (programs that lose wake-ups that way end in a deadlock report).
 * Which waiter a signal wakes is the scheduler's seeded choice.
 *
 * The cond keeps its timedwait clock and a count of its waiters (sync.h): the
 * count lets destroy say EBUSY while threads wait (glibc instead waits for
 * them; POSIX allows both).
 *
 * Callers outside the simulation may not touch the scheduler: their wait
 * unlocks, yields for real, relocks and returns 0 (a spurious wake-up); their
 * signal, when there are waiters, sets the pending word, which the next
 * simulated operation on the cond turns into a broadcast (spurious wake-ups
 * again, which POSIX allows).
 */
#include <errno.h>
#include <string.h>

#include "sched/sched.h"
#include "core/core.h"
#include "intercept/intercept.h"
#include "sync/sync.h"

#define CLOCK_W(c) detsim__sync_word((c), DETSIM_COND_CLOCK)
#define WAITERS(c) detsim__sync_word((c), DETSIM_COND_WAITERS)
#define PENDING(c) detsim__sync_word((c), DETSIM_COND_PENDING)

/* Takes the waiters the scheduler woke off the count. */
static void waiters_sub(pthread_cond_t *c, int woken) {
  CHECK_GE(woken, 0);
  uint32_t waiters = SYNC_LOAD(WAITERS(c));
  CHECK_LE((uint32_t)woken, waiters); /* the scheduler woke no more than waited */
  SYNC_STORE(WAITERS(c), waiters - (uint32_t)woken);
}

/* A simulated thread acting on the cond first delivers a signal that a
 * thread outside the simulation left. */
static void deliver_pending(pthread_cond_t *c) {
  if (__atomic_exchange_n(PENDING(c), 0, __ATOMIC_ACQ_REL) != 0) waiters_sub(c, detsim__wake_all(c));
}

int detsim__cond_init_clock(pthread_cond_t *c, clockid_t clock) {
  if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) return EINVAL;
  memset(c, 0, sizeof *c);
  SYNC_STORE(CLOCK_W(c), (uint32_t)clock);
  return 0;
}

int detsim__cond_wait(pthread_cond_t *c, pthread_mutex_t *m, bool timed, clockid_t clock,
                      const struct timespec *abstime) {
  DETSIM_CANCEL_POINT(); /* a request pending now acts with the mutex held */
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_cond_wait, c);
  uint32_t id = detsim__sync_caller_id(self);
  uint64_t deadline = DETSIM_NO_DEADLINE;
  if (timed) {
    if (clock < 0) clock = (clockid_t)SYNC_LOAD(CLOCK_W(c));
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) return EINVAL;
    if (abstime == NULL) return EINVAL;
    int rc = detsim__sync_deadline(clock, abstime, &deadline);
    if (rc != 0) return rc;
  }
  if (self == NULL) {
    int rc = detsim__mutex_release(m, id);
    if (rc != 0) return rc;
    REAL(sched_yield)();
    rc = detsim__mutex_acquire(m, NULL, id, false, DETSIM_NO_DEADLINE);
    CHECK_EQ(rc, 0); /* we released it: relocking cannot fail */
    return 0;
  }

  deliver_pending(c);
  int rc = detsim__mutex_release(m, id);
  if (rc != 0) return rc;
  __atomic_add_fetch(WAITERS(c), 1, __ATOMIC_ACQ_REL);
  int woke = detsim__wait_cancelable(DETSIM_EV_cond_wait, c, deadline);
  if (woke == ETIMEDOUT || woke == ECANCELED) {
    waiters_sub(c, 1); /* nobody woke us: we take ourselves off the count */
  } else {
    CHECK_EQ(woke, 0);
  }
  /* A recursive mutex locked more than once stayed ours (as glibc): taking
   * it again only counts up. */
  rc = detsim__mutex_acquire(m, self, id, false, DETSIM_NO_DEADLINE);
  /* We released it: relocking cannot fail, but for a PRIO_PROTECT mutex
   * (a ceiling now below our priority, a raise the kernel refuses, a count
   * that would wrap) or a robust one (its owner died, or it became not
   * recoverable), whose error glibc returns. */
  if (rc != 0) CHECK(rc == EINVAL || rc == EAGAIN || rc == EOWNERDEAD || rc == ENOTRECOVERABLE);
  /* Canceled while waiting: with the mutex held again, as POSIX says (a
   * thread that was woken returns, and a request stays pending). */
  if (woke == ECANCELED) detsim__cancel_act();
  return rc != 0 ? rc : woke;
}

int detsim__cond_wake(pthread_cond_t *c, bool all) {
  detsim_thread *self = detsim__self();
  if (self == NULL) {
    if (SYNC_LOAD(WAITERS(c)) != 0) SYNC_STORE(PENDING(c), 1);
    return 0;
  }
  detsim__yield(all ? DETSIM_EV_cond_broadcast : DETSIM_EV_cond_signal, c);
  deliver_pending(c);
  if (SYNC_LOAD(WAITERS(c)) == 0) return 0; /* lost, as POSIX says */
  int woken = all ? detsim__wake_all(c) : detsim__wake_one(c);
  if (!all) CHECK_LE(woken, 1); /* wake_one wakes at most one */
  waiters_sub(c, woken);
  return 0;
}

int detsim__cond_destroy(pthread_cond_t *c) {
  if (SYNC_LOAD(WAITERS(c)) != 0) return EBUSY;
  return 0;
}

DETSIM_EXPORT int __detsim_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr) {
  clockid_t clock = CLOCK_REALTIME;
  if (attr != NULL && REAL(pthread_condattr_getclock)(attr, &clock) != 0) return EINVAL;
  return detsim__cond_init_clock(c, clock);
}
DETSIM_INTERCEPT_ALIAS(pthread_cond_init)

DETSIM_EXPORT int __detsim_pthread_cond_destroy(pthread_cond_t *c) { return detsim__cond_destroy(c); }
DETSIM_INTERCEPT_ALIAS(pthread_cond_destroy)

DETSIM_EXPORT int __detsim_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
  return detsim__cond_wait(c, m, false, -1, NULL);
}
DETSIM_INTERCEPT_ALIAS(pthread_cond_wait)

DETSIM_EXPORT int __detsim_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                                  const struct timespec *abstime) {
  return detsim__cond_wait(c, m, true, -1, abstime);
}
DETSIM_INTERCEPT_ALIAS(pthread_cond_timedwait)

DETSIM_EXPORT int __detsim_pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                                                  const struct timespec *abstime) {
  if (clock < 0) return EINVAL; /* -1 means "the cond's clock" inside */
  return detsim__cond_wait(c, m, true, clock, abstime);
}
DETSIM_INTERCEPT_ALIAS(pthread_cond_clockwait)

DETSIM_EXPORT int __detsim_pthread_cond_signal(pthread_cond_t *c) { return detsim__cond_wake(c, false); }
DETSIM_INTERCEPT_ALIAS(pthread_cond_signal)

DETSIM_EXPORT int __detsim_pthread_cond_broadcast(pthread_cond_t *c) { return detsim__cond_wake(c, true); }
DETSIM_INTERCEPT_ALIAS(pthread_cond_broadcast)
