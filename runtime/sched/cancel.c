/* Interceptors and machinery of thread cancellation (sched/sched.h has the
 * semantics).
 *
 * Rules of this file:
 *  - The cancel state and type are the simulated thread's own; glibc's real
 *    ones are never changed, and no real cancel is ever sent, so the real
 *    thread is only ever left by the real pthread_exit the runtime calls.
 *  - A request is acted on only by the thread itself (it is never made to
 *    act from another thread), at the points sched/sched.h names; every request
 *    and every act is an event, so a replay checks them.
 */
#include "sched/sched.h"

#include <errno.h>
#include <pthread.h>

#include "core/core.h"
#include "intercept/intercept.h"

#define PC() ((uintptr_t)__builtin_return_address(0))

_Noreturn void detsim__cancel_act(void) {
  detsim_thread *self = detsim__self();
  CHECK(self != NULL);
  CHECK(detsim__cancel_due(self));
  uintptr_t pc = self->cancel_point > 0 ? self->cancel_pc : self->site_pc;
  self->cancel_pending = false;
  self->cancel_point = 0;
  self->cancel_cut = false;
  detsim__event(DETSIM_EV_thread_canceled, self, NULL, pc, 0);
  detsim__thread_exit(PTHREAD_CANCELED);
}

int detsim__cancel_point_enter(uintptr_t pc) {
  detsim_thread *self = detsim__self();
  /* The runtime's own calls (suppressed) are no cancellation points. */
  if (self == NULL || self->suppress || self->exiting) return 0;
  if (self->cancel_point++ == 0) {
    self->cancel_cut = false;
    self->cancel_pc = pc;
  }
  if (detsim__cancel_due(self)) detsim__cancel_act();
  return 1;
}

void detsim__cancel_point_leave(int *entered) {
  if (!*entered) return;
  detsim_thread *self = detsim__self();
  /* A forked child left the simulation in the middle of the call. */
  if (self == NULL || self->exiting) return;
  CHECK_GE(self->cancel_point, 1);
  if (--self->cancel_point != 0 || !self->cancel_cut) return;
  self->cancel_cut = false;
  if (detsim__cancel_due(self)) detsim__cancel_act();
}

bool detsim__cancel_cut(void) {
  detsim_thread *self = detsim__self();
  return self != NULL && self->cancel_cut;
}

DETSIM_EXPORT int __detsim_pthread_cancel(pthread_t thread) {
  detsim_thread *self = detsim__self();
  if (self == NULL) return REAL(pthread_cancel)(thread);
  detsim_thread *t = detsim__thread_find(thread);
  detsim__yield_aux(DETSIM_EV_thread_cancel, NULL, PC(), t ? detsim__thread_id(t) : 0);
  t = detsim__thread_find(thread); /* again: others ran meanwhile */
  if (t == NULL) return ESRCH;
  /* A finished thread not joined yet, or one on its way out: nothing to do. */
  if (t->state == DETSIM_T_FINISHED || t->exiting) return 0;
  t->cancel_pending = true;
  /* A target blocked in a cancellation point is runnable from now on
   * (the scheduler looks at its request); an asynchronous one acts at its
   * next yield point, the canceler itself at once. */
  if (t == self && self->cancel_async && detsim__cancel_due(self)) detsim__cancel_act();
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_cancel)

DETSIM_EXPORT int __detsim_pthread_setcancelstate(int state, int *old) {
  detsim_thread *self = detsim__self();
  if (self == NULL) return REAL(pthread_setcancelstate)(state, old);
  if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE) return EINVAL;
  if (old != NULL) *old = self->cancel_disabled ? PTHREAD_CANCEL_DISABLE : PTHREAD_CANCEL_ENABLE;
  self->cancel_disabled = state == PTHREAD_CANCEL_DISABLE;
  /* As glibc: enabling with a request pending acts at once when asynchronous. */
  if (self->cancel_async && detsim__cancel_due(self)) detsim__cancel_act();
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_setcancelstate)

DETSIM_EXPORT int __detsim_pthread_setcanceltype(int type, int *old) {
  detsim_thread *self = detsim__self();
  if (self == NULL) return REAL(pthread_setcanceltype)(type, old);
  if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS) return EINVAL;
  if (old != NULL) *old = self->cancel_async ? PTHREAD_CANCEL_ASYNCHRONOUS : PTHREAD_CANCEL_DEFERRED;
  self->cancel_async = type == PTHREAD_CANCEL_ASYNCHRONOUS;
  if (self->cancel_async && detsim__cancel_due(self)) detsim__cancel_act();
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_setcanceltype)

/* A yield point too, so a loop of testcancel alone lets the canceler run. */
DETSIM_EXPORT void __detsim_pthread_testcancel(void) {
  detsim_thread *self = detsim__self();
  if (self == NULL) {
    REAL(pthread_testcancel)();
    return;
  }
  DETSIM_CANCEL_POINT();
  detsim__yield_aux(DETSIM_EV_cancel_test, NULL, PC(), 0);
  if (detsim__cancel_due(self)) detsim__cancel_act();
}
DETSIM_INTERCEPT_ALIAS(pthread_testcancel)
