/* Interceptors: processes of the simulation (proc.h, docs/processes.md):
 * fork and vfork, the pids, and the wait family. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "real.h"
#include "report.h"
#include "sched_internal.h"
#include "world.h"

#define PC() ((uintptr_t)__builtin_return_address(0))

/* A node of a launcher's world: its launcher knows only its nodes yet, so
 * a fork there still runs natively (reported once). */
static pid_t native_fork(void) {
  static unsigned warned;
  if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
    detsim__msg("warning: fork() in a node of a simworld scenario is not simulated yet: it runs natively and the "
                "child leaves the simulation; this run may not replay");
  return REAL(fork)();
}

static pid_t sim_fork(uintptr_t pc) {
  if (detsim__self() == NULL || detsim__internal()) return REAL(fork)();
  if (detsim__world_hosts()) return native_fork();
  return detsim__proc_fork(pc);
}

DETSIM_EXPORT pid_t __detsim_fork(void) { return sim_fork(PC()); }
DETSIM_INTERCEPT_ALIAS(fork)

/* vfork runs as fork: the child has its own copy of the memory, which a
 * program that vforks only to exec or _exit cannot tell apart. */
DETSIM_EXPORT pid_t __detsim_vfork(void) { return sim_fork(PC()); }
DETSIM_INTERCEPT_ALIAS(vfork)

DETSIM_EXPORT pid_t __detsim_getpid(void) { return detsim__proc_getpid(); }
DETSIM_INTERCEPT_ALIAS(getpid)

DETSIM_EXPORT pid_t __detsim_getppid(void) { return detsim__proc_getppid(); }
DETSIM_INTERCEPT_ALIAS(getppid)

/* Whether a wait is the simulation's: this process is in a world it can
 * have children in (a run's own, after its first fork). */
static bool simulated_wait(void) { return detsim__self() != NULL && detsim__world_solo; }

DETSIM_EXPORT pid_t __detsim_waitpid(pid_t pid, int *status, int options) {
  if (!simulated_wait()) return REAL(waitpid)(pid, status, options);
  return detsim__proc_wait(pid, status, options, NULL, false, PC());
}
DETSIM_INTERCEPT_ALIAS(waitpid)

DETSIM_EXPORT pid_t __detsim_wait(int *status) {
  if (!simulated_wait()) return REAL(wait)(status);
  return detsim__proc_wait(-1, status, 0, NULL, false, PC());
}
DETSIM_INTERCEPT_ALIAS(wait)

DETSIM_EXPORT pid_t __detsim_wait4(pid_t pid, int *status, int options, struct rusage *ru) {
  if (!simulated_wait()) return REAL(wait4)(pid, status, options, ru);
  pid_t r = detsim__proc_wait(pid, status, options, NULL, false, PC());
  /* No CPU time is simulated: a child used none. */
  if (r > 0 && ru) memset(ru, 0, sizeof *ru);
  return r;
}
DETSIM_INTERCEPT_ALIAS(wait4)

DETSIM_EXPORT pid_t __detsim_wait3(int *status, int options, struct rusage *ru) {
  if (!simulated_wait()) return REAL(wait3)(status, options, ru);
  pid_t r = detsim__proc_wait(-1, status, options, NULL, false, PC());
  if (r > 0 && ru) memset(ru, 0, sizeof *ru);
  return r;
}
DETSIM_INTERCEPT_ALIAS(wait3)

DETSIM_EXPORT int __detsim_waitid(idtype_t idtype, id_t id, siginfo_t *info, int options) {
  if (!simulated_wait()) return REAL(waitid)(idtype, id, info, options);
  pid_t pid;
  if (idtype == P_ALL) pid = -1;
  else if (idtype == P_PID && (pid_t)id > 0) pid = (pid_t)id;
  else if (idtype == P_PGID) pid = id == 0 ? 0 : -(pid_t)id;
  else {
    errno = EINVAL;
    return -1;
  }
  /* waitid reports only what it is asked for: stops are not simulated. */
  if (!(options & WEXITED)) {
    if (!(options & (WSTOPPED | WCONTINUED))) {
      errno = EINVAL;
      return -1;
    }
    if (options & WNOHANG) {
      memset(info, 0, sizeof *info);
      return 0;
    }
  }
  siginfo_t got;
  pid_t r = detsim__proc_wait(pid, NULL, options, &got, true, PC());
  if (r < 0) return -1;
  if (info) *info = got;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(waitid)
