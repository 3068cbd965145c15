/* syscall(2) inside the simulation: one dispatch on runtime/syscall_table.def.
 *
 * A raw system call from a simulated thread takes the path its libc wrapper
 * takes (ROUTE: the runtime's interceptor, syscall_route.c), or the
 * runtime's own model of it (SIMULATED: futex.c, syscall_sim.c), or fails
 * as a kernel without it would (NOSYS: io_uring), or runs natively when
 * that is safe (PASSTHROUGH: none of its descriptor arguments is
 * simulated), or is reported by name and fails (UNSUPPORTED, and every
 * number the table does not know).  Nothing a simulated thread asks for by
 * number reaches the kernel unless the table says it may.
 *
 * Callers outside the simulation (before it starts, threads it does not
 * run, the runtime's own library calls) get the kernel, as they would from
 * the libc wrappers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sanitize/sanitize.h"
#include "net/net.h"
#include "intercept/intercept.h"
#include "core/core.h"
#include "sched/sched.h"

uintptr_t detsim__sys_caller;

/* The numbers of one ABI: x86_64's are below this (x32's carry a high bit
 * and are unknown here). */
#define SYSCALL_NUMBERS 512

/* Another part of the runtime may export interceptors of getpid and gettid
 * (virtual ids); raw calls then follow them, else the kernel's ids stand. */
extern pid_t __detsim_gettid(void) __attribute__((weak));
extern pid_t __detsim_getpid(void) __attribute__((weak));

pid_t detsim__sys_self_tid(void) { return __detsim_gettid ? __detsim_gettid() : REAL(gettid)(); }

long detsim__sys_getpid(const long a[6]) {
  (void)a;
  return __detsim_getpid ? __detsim_getpid() : REAL(getpid)();
}

long detsim__sys_gettid(const long a[6]) {
  (void)a;
  return detsim__sys_self_tid();
}

detsim_thread *detsim__sys_thread_of_tid(pid_t tid) {
  /* Threads' ids are the world's (proc/proc.h), as gettid gives them. */
  return detsim__thread_of_tid(tid);
}

long detsim__sys_fail(int err) {
  errno = err;
  return -1;
}

static unsigned reported_numbers[SYSCALL_NUMBERS];

static bool first_time(long number) {
  if (number < 0 || number >= SYSCALL_NUMBERS) return true;
  return __atomic_exchange_n(&reported_numbers[number], 1, __ATOMIC_RELAXED) == 0;
}

void detsim__sys_report(const char *name, const char *why) {
  /* Reports named by the call (not a table number) are few and fixed: one
   * flag per distinct text pointer, in a small table; past it, every time. */
  static const char *seen[32];
  for (unsigned i = 0; i < sizeof seen / sizeof seen[0]; i++) {
    if (seen[i] == name) return;
    if (seen[i] == NULL) {
      seen[i] = name;
      break;
    }
  }
  detsim__msg("warning: %s is not simulated (%s); the call fails with an errno instead of reaching the real kernel",
              name, why);
}

static long unsupported(long number, const char *name, const char *why) {
  if (first_time(number)) {
    if (name)
      detsim__msg("warning: syscall(SYS_%s) is not simulated (%s); it fails with ENOSYS instead of reaching the real kernel",
                  name, why);
    else
      detsim__msg("warning: syscall(%ld) is a system call detsim does not know; it fails with ENOSYS instead of "
                  "reaching the real kernel", number);
  }
  return detsim__sys_fail(ENOSYS);
}

static long passthrough(long number, const char *name, unsigned fds, const long a[6]) {
  for (int i = 0; i < 6; i++) {
    if (!(fds & (1u << i)) || net_fd_get((int)a[i]) == NULL) continue;
    if (first_time(number))
      detsim__msg("warning: syscall(SYS_%s) on simulated descriptor %d is not simulated; it fails with EBADF "
                  "instead of reaching the real kernel", name, (int)a[i]);
    return detsim__sys_fail(EBADF);
  }
  return REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* Numbers newer than the C library's headers may know (Linux 6.7). */
#ifndef SYS_futex_wake
#define SYS_futex_wake 454
#endif
#ifndef SYS_futex_wait
#define SYS_futex_wait 455
#endif
#ifndef SYS_futex_requeue
#define SYS_futex_requeue 456
#endif

static long dispatch(long number, const long a[6]) {
  switch (number) {
#define DISPATCH_ROUTE(num, name, fds, note) \
  { _Static_assert(SYS_##name == num, "syscall_table.def: the number of " #name); return detsim__sys_##name(a); }
#define DISPATCH_SIMULATED DISPATCH_ROUTE
#define DISPATCH_NOSYS(num, name, fds, note) return detsim__sys_fail(ENOSYS);
#define DISPATCH_PASSTHROUGH(num, name, fds, note) return passthrough(num, #name, fds, a);
#define DISPATCH_UNSUPPORTED(num, name, fds, note) return unsupported(num, #name, note);
#define DETSIM_SYSCALL(num, name, cls, fds, note) \
  case num: DISPATCH_##cls(num, name, fds, note)
#include "syscall_table.def"
#undef DETSIM_SYSCALL
  default:
    return unsupported(number, NULL, NULL);
  }
}

DETSIM_EXPORT long __detsim_syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  va_end(ap);
  /* Every call reads six arguments, however many the caller passed, and an
   * uninstrumented caller (libunwind) passes no shadow for them. */
  detsim__msan_unpoison(a, sizeof a);
  return detsim__syscall_from((uintptr_t)__builtin_return_address(0), number, a);
}
DETSIM_INTERCEPT_ALIAS(syscall)

long detsim__syscall_from(uintptr_t caller, long number, const long a[6]) {
  if (!detsim__running() || detsim__internal() || detsim__self() == NULL)
    return REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
  detsim__sys_caller = caller;
  return dispatch(number, a);
}
