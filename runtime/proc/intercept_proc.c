/* Interceptors: processes of the simulation (proc.h, docs/processes.md):
 * fork and vfork, the wait family, exec (the pids: intercept_proc_ids.c;
 * exec itself: proc_exec.c). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sched/sched.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "core/core.h"
#include "world/world.h"

#define PC() ((uintptr_t)__builtin_return_address(0))

static pid_t sim_fork(uintptr_t pc) {
  if (detsim__self() == NULL || detsim__internal()) return REAL(fork)();
  return detsim__proc_fork(pc);
}

DETSIM_EXPORT pid_t __detsim_fork(void) { return sim_fork(PC()); }
DETSIM_INTERCEPT_ALIAS(fork)

/* vfork runs as fork: the child has its own copy of the memory, which a
 * program that vforks only to exec or _exit cannot tell apart. */
DETSIM_EXPORT pid_t __detsim_vfork(void) { return sim_fork(PC()); }
DETSIM_INTERCEPT_ALIAS(vfork)

/* Whether a wait is the simulation's: this process is in a world, where
 * its children are (a run's own after its first fork, a scenario's). */
static bool simulated_wait(void) { return detsim__self() != NULL && detsim__in_world; }

DETSIM_EXPORT pid_t __detsim_waitpid(pid_t pid, int *status, int options) {
  DETSIM_CANCEL_POINT();
  if (!simulated_wait()) return REAL(waitpid)(pid, status, options);
  return detsim__proc_wait(pid, status, options, NULL, false, PC());
}
DETSIM_INTERCEPT_ALIAS(waitpid)

DETSIM_EXPORT pid_t __detsim_wait(int *status) {
  DETSIM_CANCEL_POINT();
  if (!simulated_wait()) return REAL(wait)(status);
  return detsim__proc_wait(-1, status, 0, NULL, false, PC());
}
DETSIM_INTERCEPT_ALIAS(wait)

DETSIM_EXPORT pid_t __detsim_wait4(pid_t pid, int *status, int options, struct rusage *ru) {
  DETSIM_CANCEL_POINT();
  if (!simulated_wait()) return REAL(wait4)(pid, status, options, ru);
  pid_t r = detsim__proc_wait(pid, status, options, NULL, false, PC());
  /* No CPU time is simulated: a child used none. */
  if (r > 0 && ru) memset(ru, 0, sizeof *ru);
  return r;
}
DETSIM_INTERCEPT_ALIAS(wait4)

DETSIM_EXPORT pid_t __detsim_wait3(int *status, int options, struct rusage *ru) {
  DETSIM_CANCEL_POINT();
  if (!simulated_wait()) return REAL(wait3)(status, options, ru);
  pid_t r = detsim__proc_wait(-1, status, options, NULL, false, PC());
  if (r > 0 && ru) memset(ru, 0, sizeof *ru);
  return r;
}
DETSIM_INTERCEPT_ALIAS(wait3)

DETSIM_EXPORT int __detsim_waitid(idtype_t idtype, id_t id, siginfo_t *info, int options) {
  DETSIM_CANCEL_POINT();
  if (!simulated_wait()) return REAL(waitid)(idtype, id, info, options);
  pid_t pid;
  if (idtype == P_ALL) pid = -1;
  else if (idtype == P_PID && (pid_t)id > 0) pid = (pid_t)id;
  else if (idtype == P_PGID) pid = id == 0 ? 0 : -(pid_t)id;
  else {
    errno = EINVAL;
    return -1;
  }
  /* waitid reports only what it is asked for, and must be asked for
   * something. */
  if (!(options & (WEXITED | WSTOPPED | WCONTINUED))) {
    errno = EINVAL;
    return -1;
  }
  siginfo_t got;
  pid_t r = detsim__proc_wait(pid, NULL, options, &got, true, PC());
  if (r < 0) return -1;
  if (info) *info = got;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(waitid)

/* ---- exec ----
 *
 * In the simulation every exec goes through detsim__proc_exec
 * (proc_exec.c): a simulation build goes on in the process's slot of the
 * world; any other binary is an escape (EPERM and an error naming it, or
 * with exec_native=1 a run outside).  Outside the simulation (a native
 * child, the runtime's own calls) exec is libc's. */

static bool simulated_exec(void) { return detsim__self() != NULL && !detsim__internal(); }

/* Outside the simulation too, the run-time traps outlive the exec. */
static bool native_exec_refused(const char *call, const char *path) { return detsim__trap_exec_refused(call, path); }

DETSIM_EXPORT int __detsim_execve(const char *path, char *const argv[], char *const envp[]) {
  if (!simulated_exec()) return native_exec_refused("execve", path) ? -1 : REAL(execve)(path, argv, envp);
  return detsim__proc_exec("execve", path, false, -1, argv, envp, PC());
}
DETSIM_INTERCEPT_ALIAS(execve)

DETSIM_EXPORT int __detsim_execv(const char *path, char *const argv[]) {
  if (!simulated_exec()) return native_exec_refused("execv", path) ? -1 : REAL(execv)(path, argv);
  return detsim__proc_exec("execv", path, false, -1, argv, NULL, PC());
}
DETSIM_INTERCEPT_ALIAS(execv)

DETSIM_EXPORT int __detsim_execvp(const char *file, char *const argv[]) {
  if (!simulated_exec()) return native_exec_refused("execvp", file) ? -1 : REAL(execvp)(file, argv);
  return detsim__proc_exec("execvp", file, true, -1, argv, NULL, PC());
}
DETSIM_INTERCEPT_ALIAS(execvp)

DETSIM_EXPORT int __detsim_execvpe(const char *file, char *const argv[], char *const envp[]) {
  if (!simulated_exec()) return native_exec_refused("execvpe", file) ? -1 : REAL(execvpe)(file, argv, envp);
  return detsim__proc_exec("execvpe", file, true, -1, argv, envp, PC());
}
DETSIM_INTERCEPT_ALIAS(execvpe)

DETSIM_EXPORT int __detsim_fexecve(int fd, char *const argv[], char *const envp[]) {
  if (!simulated_exec()) return native_exec_refused("fexecve", "(descriptor)") ? -1 : REAL(fexecve)(fd, argv, envp);
  if (fd < 0) {
    errno = EBADF;
    return -1;
  }
  return detsim__proc_exec("fexecve", argv && argv[0] ? argv[0] : "(fd)", false, fd, argv, envp, PC());
}
DETSIM_INTERCEPT_ALIAS(fexecve)

/* The execl forms: their arguments as an argv (and execle's envp after
 * the terminating NULL), then the execv form's path. */
#define EXECL_BODY(call, first, search, real_call)                \
  uintptr_t pc = PC();                                            \
  va_list ap;                                                     \
  va_start(ap, arg0);                                             \
  size_t n = 1;                                                   \
  va_list count;                                                  \
  va_copy(count, ap);                                             \
  while (va_arg(count, char *) != NULL) n++;                      \
  va_end(count);                                                  \
  char *args[n + 1];                                              \
  args[0] = (char *)arg0;                                         \
  for (size_t i = 1; i <= n; i++) args[i] = va_arg(ap, char *);   \
  char **envp = with_env ? va_arg(ap, char **) : NULL;            \
  va_end(ap);                                                     \
  if (!simulated_exec()) return native_exec_refused(call, first) ? -1 : real_call; \
  return detsim__proc_exec(call, first, search, -1, args, envp, pc);

DETSIM_EXPORT int __detsim_execl(const char *path, const char *arg0, ...) {
  const bool with_env = false;
  EXECL_BODY("execl", path, false, REAL(execv)(path, args))
}
DETSIM_INTERCEPT_ALIAS(execl)

DETSIM_EXPORT int __detsim_execlp(const char *file, const char *arg0, ...) {
  const bool with_env = false;
  EXECL_BODY("execlp", file, true, REAL(execvp)(file, args))
}
DETSIM_INTERCEPT_ALIAS(execlp)

DETSIM_EXPORT int __detsim_execle(const char *path, const char *arg0, ...) {
  const bool with_env = true;
  EXECL_BODY("execle", path, false, REAL(execve)(path, args, envp))
}
DETSIM_INTERCEPT_ALIAS(execle)
