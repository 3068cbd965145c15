/* Barriers: the last of `count` arrivals ends the round, gets
 * PTHREAD_BARRIER_SERIAL_THREAD and releases the others, which get 0.  Which
 * thread arrives last is the schedule's choice, so it varies by seed.
 *
 * Waiters wait for the round word to change (their predicate's argument, the
 * barrier and the round they arrived in, lives on their own stack while they
 * wait).  The inside word counts threads between arriving and returning:
 * destroy waits until they have all left, as glibc does, so the common
 * "last one out destroys it" pattern never leaves a predicate reading freed
 * memory.  Destroy while a round is incomplete gives EBUSY (POSIX allows it;
 * glibc would wait).  Init with a count of 0 or above INT_MAX gives EINVAL,
 * and so does a wait on a barrier that is not initialized or destroyed.
 */
#include <errno.h>
#include <string.h>

#include "core/core.h"
#include "sched/sched.h"
#include "sync/sync.h"

#define COUNT(b) detsim__sync_word((b), DETSIM_BARRIER_COUNT)
#define ARRIVED(b) detsim__sync_word((b), DETSIM_BARRIER_ARRIVED)
#define ROUND(b) detsim__sync_word((b), DETSIM_BARRIER_ROUND)
#define INSIDE(b) detsim__sync_word((b), DETSIM_BARRIER_INSIDE)

struct round_wait {
  const pthread_barrier_t *b;
  uint32_t round;
};

static bool round_over(void *arg) {
  const struct round_wait *w = arg;
  return SYNC_LOAD(ROUND(w->b)) != w->round;
}

static bool all_left(void *arg) { return SYNC_LOAD(INSIDE(arg)) == 0; }

static void leave(pthread_barrier_t *b) {
  uint32_t before = __atomic_fetch_sub(INSIDE(b), 1, __ATOMIC_ACQ_REL);
  CHECK_GE(before, 1); /* we counted ourselves in */
}

DETSIM_EXPORT int __detsim_pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr,
                                                unsigned count) {
  (void)attr; /* process-shared behaves as private */
  if (count == 0 || count > DETSIM_BARRIER_COUNT_MAX) return EINVAL;
  memset(b, 0, sizeof *b);
  SYNC_STORE(COUNT(b), count);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_barrier_init)

DETSIM_EXPORT int __detsim_pthread_barrier_wait(pthread_barrier_t *b) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_barrier_wait, b);
  uint32_t count = SYNC_LOAD(COUNT(b));
  if (count == 0) return EINVAL;
  __atomic_add_fetch(INSIDE(b), 1, __ATOMIC_ACQ_REL);
  /* Every arrival publishes; every thread leaving the round takes all. */
  detsim__hb_release(b);
  /* The round cannot end before we arrive, so this is the round we join. */
  struct round_wait w = {b, SYNC_LOAD(ROUND(b))};
  uint32_t arrived = __atomic_add_fetch(ARRIVED(b), 1, __ATOMIC_ACQ_REL);
  CHECK_LE(arrived, count); /* a round never has more arrivals than its count */
  if (arrived == count) {
    SYNC_STORE(ARRIVED(b), 0);
    SYNC_STORE(ROUND(b), w.round + 1);
    detsim__hb_acquire(b);
    leave(b);
    return PTHREAD_BARRIER_SERIAL_THREAD;
  }
  int rc = self != NULL ? detsim__block(DETSIM_EV_barrier_wait, b, round_over, &w, DETSIM_NO_DEADLINE)
                        : detsim__sync_outside_wait(round_over, &w, DETSIM_NO_DEADLINE);
  CHECK_EQ(rc, 0); /* no deadline: only the round's end ends the wait */
  detsim__hb_acquire(b);
  leave(b);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_barrier_wait)

DETSIM_EXPORT int __detsim_pthread_barrier_destroy(pthread_barrier_t *b) {
  if (SYNC_LOAD(COUNT(b)) == 0) return EINVAL;
  if (SYNC_LOAD(ARRIVED(b)) != 0) return EBUSY;
  detsim_thread *self = detsim__self();
  int rc = self != NULL ? detsim__block(DETSIM_EV_barrier_wait, b, all_left, b, DETSIM_NO_DEADLINE)
                        : detsim__sync_outside_wait(all_left, b, DETSIM_NO_DEADLINE);
  CHECK_EQ(rc, 0); /* no deadline */
  SYNC_STORE(COUNT(b), 0);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_barrier_destroy)
