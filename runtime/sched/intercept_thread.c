/* Interceptors: thread lifecycle (pthread_* and C11 thrd_*). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <threads.h>

#include "sched/sched.h"
#include "proc/proc.h"
#include "time/time.h"
#include "intercept/intercept.h"
#include "sanitize/sanitize.h"

DETSIM_EXPORT int __detsim_pthread_create(pthread_t *out, const pthread_attr_t *attr,
                                          void *(*start)(void *), void *arg) {
  if (detsim__sanitizer_passing_through()) return REAL_PAST_SANITIZER(pthread_create)(out, attr, start, arg);
  if (detsim__proc_in_real_fork()) return REAL(pthread_create)(out, attr, start, arg);
  detsim__sanitizer_called_us(DETSIM_FROM_SANITIZER());
  int r = detsim__thread_create(out, attr, start, arg);
  detsim__sanitizer_called_us(false);
  return r;
}
DETSIM_INTERCEPT_ALIAS(pthread_create)

DETSIM_EXPORT int __detsim_pthread_join(pthread_t t, void **retval) {
  if (detsim__sanitizer_passing_through()) return REAL_PAST_SANITIZER(pthread_join)(t, retval);
  DETSIM_CANCEL_POINT();
  detsim__sanitizer_called_us(DETSIM_FROM_SANITIZER());
  int r = detsim__thread_join(t, retval, false, DETSIM_NO_DEADLINE);
  detsim__sanitizer_called_us(false);
  return r;
}
DETSIM_INTERCEPT_ALIAS(pthread_join)

DETSIM_EXPORT int __detsim_pthread_tryjoin_np(pthread_t t, void **retval) {
  if (detsim__self() == NULL) return REAL(pthread_tryjoin_np)(t, retval);
  return detsim__thread_join(t, retval, true, DETSIM_NO_DEADLINE);
}
DETSIM_INTERCEPT_ALIAS(pthread_tryjoin_np)

DETSIM_EXPORT int __detsim_pthread_clockjoin_np(pthread_t t, void **retval, clockid_t clock,
                                                const struct timespec *abstime) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(pthread_clockjoin_np)(t, retval, clock, abstime);
  uint64_t deadline = DETSIM_NO_DEADLINE;
  if (abstime != NULL) {
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC) return EINVAL;
    int r = detsim__deadline_from_abstime(clock, abstime, &deadline);
    if (r != 0) return r;
  }
  return detsim__thread_join(t, retval, false, deadline);
}
DETSIM_INTERCEPT_ALIAS(pthread_clockjoin_np)

DETSIM_EXPORT int __detsim_pthread_timedjoin_np(pthread_t t, void **retval, const struct timespec *abstime) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(pthread_timedjoin_np)(t, retval, abstime);
  return __detsim_pthread_clockjoin_np(t, retval, CLOCK_REALTIME, abstime);
}
DETSIM_INTERCEPT_ALIAS(pthread_timedjoin_np)

DETSIM_EXPORT int __detsim_pthread_detach(pthread_t t) {
  if (detsim__sanitizer_passing_through()) return REAL(pthread_detach)(t);
  detsim__sanitizer_called_us(DETSIM_FROM_SANITIZER());
  int r = detsim__thread_detach(t);
  detsim__sanitizer_called_us(false);
  return r;
}
DETSIM_INTERCEPT_ALIAS(pthread_detach)

DETSIM_EXPORT _Noreturn void __detsim_pthread_exit(void *retval) { detsim__thread_exit(retval); }
DETSIM_INTERCEPT_ALIAS(pthread_exit)

DETSIM_EXPORT pthread_t __detsim_pthread_self(void) { return REAL(pthread_self)(); }
DETSIM_INTERCEPT_ALIAS(pthread_self)

/* Affinity and scheduling policies: machine_cpu.c. */

DETSIM_EXPORT int __detsim_sched_yield(void) {
  /* A sanitizer spins with sched_yield while its threads hand over work. */
  if (detsim__self() == NULL || DETSIM_FROM_SANITIZER()) return REAL(sched_yield)();
  detsim__yield_to_other((uintptr_t)__builtin_return_address(0));
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sched_yield)

DETSIM_EXPORT int __detsim_pthread_yield(void) { return __detsim_sched_yield(); }
/* pthread_yield is deprecated in glibc's headers; export it by name only. */
DETSIM_EXPORT int pthread_yield(void) __attribute__((alias("__detsim_pthread_yield")));

/* ---- C11 threads: glibc's thrd_t is a pthread_t ---- */

struct c11_start {
  thrd_start_t fn;
  void *arg;
};

/* A C11 thread's start routine returns int; its exit code travels through
 * the void * of a pthread. */
static void *c11_trampoline(void *p) {
  struct c11_start s = *(struct c11_start *)p;
  free(p);
  return (void *)(intptr_t)s.fn(s.arg);
}

static int c11_result(int err) {
  switch (err) {
    case 0: return thrd_success;
    case ENOMEM: return thrd_nomem;
    case EBUSY: return thrd_busy;
    case ETIMEDOUT: return thrd_timedout;
    default: return thrd_error;
  }
}

DETSIM_EXPORT int __detsim_thrd_create(thrd_t *thr, thrd_start_t fn, void *arg) {
  struct c11_start *s = malloc(sizeof *s);
  if (s == NULL) return thrd_nomem;
  s->fn = fn;
  s->arg = arg;
  pthread_t t;
  int r = __detsim_pthread_create(&t, NULL, c11_trampoline, s);
  if (r != 0) {
    free(s);
    return r == EAGAIN ? thrd_nomem : thrd_error;
  }
  *thr = (thrd_t)t;
  return thrd_success;
}
DETSIM_INTERCEPT_ALIAS(thrd_create)

DETSIM_EXPORT int __detsim_thrd_join(thrd_t thr, int *res) {
  void *ret = NULL;
  int r = __detsim_pthread_join((pthread_t)thr, &ret);
  if (r != 0) return thrd_error;
  if (res) *res = (int)(intptr_t)ret;
  return thrd_success;
}
DETSIM_INTERCEPT_ALIAS(thrd_join)

DETSIM_EXPORT int __detsim_thrd_detach(thrd_t thr) {
  return c11_result(__detsim_pthread_detach((pthread_t)thr));
}
DETSIM_INTERCEPT_ALIAS(thrd_detach)

DETSIM_EXPORT _Noreturn void __detsim_thrd_exit(int res) { __detsim_pthread_exit((void *)(intptr_t)res); }
DETSIM_INTERCEPT_ALIAS(thrd_exit)

DETSIM_EXPORT thrd_t __detsim_thrd_current(void) { return (thrd_t)REAL(pthread_self)(); }
DETSIM_INTERCEPT_ALIAS(thrd_current)

DETSIM_EXPORT void __detsim_thrd_yield(void) { __detsim_sched_yield(); }
DETSIM_INTERCEPT_ALIAS(thrd_yield)
