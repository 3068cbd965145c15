/* C11 <threads.h> mutexes, condition variables and call_once, on the
 * pthread implementations (glibc's mtx_t, cnd_t and once_flag have the
 * layouts of pthread_mutex_t, pthread_cond_t and pthread_once_t).
 *
 * Return codes as glibc maps them: 0 -> thrd_success, EBUSY -> thrd_busy,
 * ETIMEDOUT -> thrd_timedout, ENOMEM -> thrd_nomem, anything else ->
 * thrd_error.  TIME_UTC deadlines are virtual CLOCK_REALTIME.
 */
#include <errno.h>
#include <threads.h>

#include "core/core.h"
#include "sched/sched.h"
#include "sync/sync.h"

static int thrd_code(int err) {
  switch (err) {
    case 0: return thrd_success;
    case EBUSY: return thrd_busy;
    case ETIMEDOUT: return thrd_timedout;
    case ENOMEM: return thrd_nomem;
    default: return thrd_error;
  }
}

static pthread_mutex_t *as_mutex(mtx_t *m) { return (pthread_mutex_t *)(void *)m; }
static pthread_cond_t *as_cond(cnd_t *c) { return (pthread_cond_t *)(void *)c; }

DETSIM_EXPORT int __detsim_mtx_init(mtx_t *m, int type) {
  switch (type) {
    case mtx_plain:
    case mtx_timed:
    case mtx_plain | mtx_recursive:
    case mtx_timed | mtx_recursive: break;
    default: return thrd_error;
  }
  int ptype = (type & mtx_recursive) != 0 ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_NORMAL;
  return thrd_code(detsim__mutex_init_type(as_mutex(m), ptype));
}
DETSIM_INTERCEPT_ALIAS(mtx_init)

DETSIM_EXPORT int __detsim_mtx_lock(mtx_t *m) {
  return thrd_code(detsim__mutex_lock(as_mutex(m), DETSIM_LOCK_BLOCK, CLOCK_REALTIME, NULL));
}
DETSIM_INTERCEPT_ALIAS(mtx_lock)

DETSIM_EXPORT int __detsim_mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict abstime) {
  return thrd_code(detsim__mutex_lock(as_mutex(m), DETSIM_LOCK_TIMED, CLOCK_REALTIME, abstime));
}
DETSIM_INTERCEPT_ALIAS(mtx_timedlock)

DETSIM_EXPORT int __detsim_mtx_trylock(mtx_t *m) {
  return thrd_code(detsim__mutex_lock(as_mutex(m), DETSIM_LOCK_TRY, CLOCK_REALTIME, NULL));
}
DETSIM_INTERCEPT_ALIAS(mtx_trylock)

DETSIM_EXPORT int __detsim_mtx_unlock(mtx_t *m) { return thrd_code(detsim__mutex_unlock(as_mutex(m))); }
DETSIM_INTERCEPT_ALIAS(mtx_unlock)

DETSIM_EXPORT void __detsim_mtx_destroy(mtx_t *m) { (void)detsim__mutex_destroy(as_mutex(m)); }
DETSIM_INTERCEPT_ALIAS(mtx_destroy)

DETSIM_EXPORT int __detsim_cnd_init(cnd_t *c) {
  return thrd_code(detsim__cond_init_clock(as_cond(c), CLOCK_REALTIME));
}
DETSIM_INTERCEPT_ALIAS(cnd_init)

DETSIM_EXPORT int __detsim_cnd_signal(cnd_t *c) { return thrd_code(detsim__cond_wake(as_cond(c), false)); }
DETSIM_INTERCEPT_ALIAS(cnd_signal)

DETSIM_EXPORT int __detsim_cnd_broadcast(cnd_t *c) { return thrd_code(detsim__cond_wake(as_cond(c), true)); }
DETSIM_INTERCEPT_ALIAS(cnd_broadcast)

DETSIM_EXPORT int __detsim_cnd_wait(cnd_t *c, mtx_t *m) {
  return thrd_code(detsim__cond_wait(as_cond(c), as_mutex(m), false, -1, NULL));
}
DETSIM_INTERCEPT_ALIAS(cnd_wait)

DETSIM_EXPORT int __detsim_cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
                                         const struct timespec *restrict abstime) {
  return thrd_code(detsim__cond_wait(as_cond(c), as_mutex(m), true, CLOCK_REALTIME, abstime));
}
DETSIM_INTERCEPT_ALIAS(cnd_timedwait)

DETSIM_EXPORT void __detsim_cnd_destroy(cnd_t *c) { (void)detsim__cond_destroy(as_cond(c)); }
DETSIM_INTERCEPT_ALIAS(cnd_destroy)

DETSIM_EXPORT void __detsim_call_once(once_flag *flag, void (*func)(void)) {
  int rc = detsim__once((pthread_once_t *)(void *)flag, func);
  CHECK_EQ(rc, 0); /* once never fails */
}
DETSIM_INTERCEPT_ALIAS(call_once)
