/* Spinlocks: a simulated thread blocks (rather than spins) while the lock is
 * held, so a spin loop costs one block, not a million yield points.
 *
 * The word holds the owner's id (glibc stores 1; any non-zero is "locked",
 * and the id lets a trace say who holds it).  As glibc: relocking by the
 * owner waits for itself (a deadlock the scheduler reports), trylock gives
 * EBUSY, unlock and destroy always return 0.
 */
#include <errno.h>

#include "core/core.h"
#include "sched/sched.h"
#include "sync/sync.h"

#define OWNER(s) detsim__sync_word((s), DETSIM_SPIN_OWNER)

static bool spin_free(void *arg) { return SYNC_LOAD(OWNER(arg)) == 0; }

static int spin_lock(pthread_spinlock_t *s, bool try_only) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_spin_lock, (const void *)s);
  uint32_t id = detsim__sync_caller_id(self);
  for (;;) {
    uint32_t owner = 0;
    if (SYNC_CAS(OWNER(s), &owner, id)) return 0;
    CHECK_NE(owner, 0);
    if (try_only) return EBUSY;
    int rc = self != NULL
                 ? detsim__block(DETSIM_EV_spin_lock, (const void *)s, spin_free, (void *)s, DETSIM_NO_DEADLINE)
                 : detsim__sync_outside_wait(spin_free, (void *)s, DETSIM_NO_DEADLINE);
    CHECK_EQ(rc, 0); /* no deadline: only ready ends the wait */
  }
}

DETSIM_EXPORT int __detsim_pthread_spin_init(pthread_spinlock_t *s, int pshared) {
  (void)pshared; /* process-shared behaves as private */
  SYNC_STORE(OWNER(s), 0);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_spin_init)

DETSIM_EXPORT int __detsim_pthread_spin_destroy(pthread_spinlock_t *s) {
  (void)s;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_spin_destroy)

DETSIM_EXPORT int __detsim_pthread_spin_lock(pthread_spinlock_t *s) { return spin_lock(s, false); }
DETSIM_INTERCEPT_ALIAS(pthread_spin_lock)

DETSIM_EXPORT int __detsim_pthread_spin_trylock(pthread_spinlock_t *s) { return spin_lock(s, true); }
DETSIM_INTERCEPT_ALIAS(pthread_spin_trylock)

DETSIM_EXPORT int __detsim_pthread_spin_unlock(pthread_spinlock_t *s) {
  detsim_thread *self = detsim__self();
  if (self != NULL) detsim__yield(DETSIM_EV_spin_unlock, (const void *)s);
  SYNC_STORE(OWNER(s), 0);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_spin_unlock)
