/* pthread_once and call_once: the first caller runs the routine; callers
 * that come while it runs block until it is done; later ones return at once.
 *
 * As glibc, a routine that calls pthread_once on its own control waits for
 * itself (a deadlock the scheduler reports).  A routine that is canceled
 * (or calls pthread_exit) leaves the control as if pthread_once had never
 * been called, as POSIX says: a waiter then runs the routine itself.
 */
#include <errno.h>

#include "core/core.h"
#include "sched/sched.h"
#include "sync/sync.h"

#define STATE(o) detsim__sync_word((o), DETSIM_ONCE_STATE)

/* Waiters wait for the run to end, done or canceled. */
static bool once_over(void *arg) { return SYNC_LOAD(STATE(arg)) != DETSIM_ONCE_RUNNING; }

/* Runs as the routine's thread unwinds (a cancel, pthread_exit). */
static void once_reset(void *arg) {
  uint32_t prev = __atomic_exchange_n(STATE(arg), DETSIM_ONCE_NOT_RUN, __ATOMIC_ACQ_REL);
  CHECK_EQ(prev, DETSIM_ONCE_RUNNING); /* only the runner leaves a run */
}

static void run_routine(pthread_once_t *once, void (*routine)(void)) {
  pthread_cleanup_push(once_reset, once);
  routine();
  pthread_cleanup_pop(0);
}

int detsim__once(pthread_once_t *once, void (*routine)(void)) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_once, once);
  for (;;) {
    uint32_t state = DETSIM_ONCE_NOT_RUN;
    if (SYNC_CAS(STATE(once), &state, DETSIM_ONCE_RUNNING)) {
      run_routine(once, routine);
      detsim__hb_release(once); /* what the routine did, for every later caller */
      uint32_t prev = __atomic_exchange_n(STATE(once), DETSIM_ONCE_DONE, __ATOMIC_ACQ_REL);
      CHECK_EQ(prev, DETSIM_ONCE_RUNNING); /* only the runner ends the run */
      return 0;
    }
    if (state == DETSIM_ONCE_DONE) {
      detsim__hb_acquire(once);
      return 0;
    }
    CHECK_EQ(state, DETSIM_ONCE_RUNNING); /* a once control is not run, running or done */
    int rc = self != NULL ? detsim__block(DETSIM_EV_once, once, once_over, once, DETSIM_NO_DEADLINE)
                          : detsim__sync_outside_wait(once_over, once, DETSIM_NO_DEADLINE);
    CHECK_EQ(rc, 0); /* no deadline */
  }
}

DETSIM_EXPORT int __detsim_pthread_once(pthread_once_t *once, void (*routine)(void)) {
  /* A sanitizer's own once controls (its symbolizer's, while it reports,
   * holding its report lock): libc's, neither an event nor a yield point. */
  if (DETSIM_FROM_SANITIZER()) return REAL(pthread_once)(once, routine);
  return detsim__once(once, routine);
}
DETSIM_INTERCEPT_ALIAS(pthread_once)
