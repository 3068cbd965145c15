/* Interceptors: the ways out of a process that skip exit handlers, and the
 * calls detsim does not simulate yet (reported loudly, once each, then run
 * natively: never silently). */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "intercept/intercept.h"
#include "core/core.h"
#include "sched/sched.h"

static void end_now(int status) {
  if (!detsim__running()) return;
  detsim__report_no_flush();
  detsim__finish(status == 0 ? DETSIM_CLASS_pass : DETSIM_CLASS_exit, status, NULL);
}

DETSIM_EXPORT _Noreturn void __detsim__exit(int status) {
  end_now(status);
  REAL(_exit)(status);
}
DETSIM_INTERCEPT_ALIAS(_exit)

DETSIM_EXPORT _Noreturn void __detsim__Exit(int status) {
  end_now(status);
  REAL(_Exit)(status);
}
DETSIM_INTERCEPT_ALIAS(_Exit)

DETSIM_EXPORT _Noreturn void __detsim_quick_exit(int status) {
  /* at_quick_exit handlers run first, as quick_exit would run them. */
  if (detsim__running()) fflush(NULL);
  end_now(status);
  REAL(quick_exit)(status);
}
DETSIM_INTERCEPT_ALIAS(quick_exit)

/* ---- unsupported: warn once per function ---- */

static void unsupported(const char *name, const char *why, unsigned *warned) {
  if (!detsim__running() || detsim__internal() || __atomic_exchange_n(warned, 1, __ATOMIC_RELAXED)) return;
  detsim__msg("warning: %s() is not simulated (%s); it runs natively and this run may not replay", name, why);
}

#define UNSUPPORTED_NOTE(name) \
  __attribute__((unused)) static unsigned warned_##name; \
  __attribute__((unused)) static const char *const why_##name =
#include "unsupported_notes.inc"

DETSIM_EXPORT int __detsim_shm_open(const char *name, int oflag, mode_t mode) {
  unsupported("shm_open", why_shm_open, &warned_shm_open);
  return REAL(shm_open)(name, oflag, mode);
}
DETSIM_INTERCEPT_ALIAS(shm_open)

DETSIM_EXPORT int __detsim_shm_unlink(const char *name) {
  unsupported("shm_unlink", why_shm_unlink, &warned_shm_unlink);
  return REAL(shm_unlink)(name);
}
DETSIM_INTERCEPT_ALIAS(shm_unlink)
