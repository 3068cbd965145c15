/* pthread_once and call_once: the first caller runs the routine; callers
 * that come while it runs block until it is done; later ones return at once.
 *
 * As glibc, a routine that calls pthread_once on its own control waits for
 * itself (a deadlock the scheduler reports).  Cancellation of the routine is
 * not simulated (pthread_cancel is unsupported).
 */
#include <errno.h>

#include "check.h"
#include "sched.h"
#include "sync.h"

#define STATE(o) detsim__sync_word((o), DETSIM_ONCE_STATE)

static bool once_done(void *arg) { return SYNC_LOAD(STATE(arg)) == DETSIM_ONCE_DONE; }

int detsim__once(pthread_once_t *once, void (*routine)(void)) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_once, once);
  for (;;) {
    uint32_t state = DETSIM_ONCE_NOT_RUN;
    if (SYNC_CAS(STATE(once), &state, DETSIM_ONCE_RUNNING)) {
      routine();
      uint32_t prev = __atomic_exchange_n(STATE(once), DETSIM_ONCE_DONE, __ATOMIC_ACQ_REL);
      CHECK_EQ(prev, DETSIM_ONCE_RUNNING); /* only the runner ends the run */
      return 0;
    }
    if (state == DETSIM_ONCE_DONE) return 0;
    CHECK_EQ(state, DETSIM_ONCE_RUNNING); /* a once control is not run, running or done */
    int rc = self != NULL ? detsim__block(DETSIM_EV_once, once, once_done, once, DETSIM_NO_DEADLINE)
                          : detsim__sync_outside_wait(once_done, once, DETSIM_NO_DEADLINE);
    CHECK_EQ(rc, 0); /* no deadline */
  }
}

DETSIM_EXPORT int __detsim_pthread_once(pthread_once_t *once, void (*routine)(void)) {
  return detsim__once(once, routine);
}
DETSIM_INTERCEPT_ALIAS(pthread_once)
