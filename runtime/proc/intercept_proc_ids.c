/* Interceptors: the ids a process asks about itself (proc/proc.h).
 *
 * None of these is a yield point: they read the simulation's state and
 * never block, as the kernel's answers never change under a process.
 * Before the runtime gives the process its ids (a library's constructor)
 * and in a native child, the kernel answers; so it does inside the
 * runtime's own work (detsim__internal: libunwind reads /proc/<getpid()>/maps
 * for a backtrace).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "world/world.h"

DETSIM_EXPORT pid_t __detsim_getpid(void) {
  if (!detsim__proc_ids_ready() || detsim__internal()) return REAL(getpid)();
  return detsim__proc_pid();
}
DETSIM_INTERCEPT_ALIAS(getpid)

DETSIM_EXPORT pid_t __detsim_getppid(void) {
  if (!detsim__proc_ids_ready() || detsim__internal()) return REAL(getppid)();
  return detsim__proc_ppid();
}
DETSIM_INTERCEPT_ALIAS(getppid)

/* A simulated thread's own tid; a thread outside the simulation (one in
 * its real exit path) has only the kernel's. */
DETSIM_EXPORT pid_t __detsim_gettid(void) {
  detsim_thread *self = detsim__self();
  if (self == NULL || !detsim__proc_ids_ready() || detsim__internal()) return REAL(gettid)();
  return self->tid;
}
DETSIM_INTERCEPT_ALIAS(gettid)

DETSIM_EXPORT pid_t __detsim_getpgrp(void) {
  if (!detsim__proc_ids_ready()) return REAL(getpgrp)();
  return detsim__proc_pgid();
}
DETSIM_INTERCEPT_ALIAS(getpgrp)

/* Another process of the world (a zombie too, as the kernel finds one
 * until it is reaped): its group or session; ESRCH for any other pid. */
static pid_t of_process(pid_t pid, pid_t mine, pid_t (*of_node)(unsigned)) {
  if (pid == 0 || pid == detsim__proc_pid()) return mine;
  int j = pid > 0 ? detsim__proc_node_of_any(pid) : -1;
  if (j >= 0) return of_node((unsigned)j);
  errno = ESRCH;
  return -1;
}

DETSIM_EXPORT pid_t __detsim_getpgid(pid_t pid) {
  if (!detsim__proc_ids_ready()) return REAL(getpgid)(pid);
  return of_process(pid, detsim__proc_pgid(), detsim__proc_pgid_of_node);
}
DETSIM_INTERCEPT_ALIAS(getpgid)

DETSIM_EXPORT pid_t __detsim_getsid(pid_t pid) {
  if (!detsim__proc_ids_ready()) return REAL(getsid)(pid);
  return of_process(pid, detsim__proc_sid(), detsim__proc_sid_of_node);
}
DETSIM_INTERCEPT_ALIAS(getsid)

/* readlink("/proc/self") names the process by its pid, and
 * "/proc/thread-self" the thread as "PID/task/TID": both the virtual ones.
 * Every other link is the kernel's. */
static ssize_t copy_link(const char *text, char *buf, size_t size) {
  size_t n = strlen(text);
  if (n > size) n = size; /* readlink truncates, without a NUL */
  memcpy(buf, text, n);
  return (ssize_t)n;
}

static ssize_t sim_readlink(const char *path, char *buf, size_t size, bool *done) {
  *done = false;
  if (path == NULL || !detsim__proc_ids_ready() || detsim__internal()) return 0;
  char text[64];
  if (!strcmp(path, "/proc/self")) {
    snprintf(text, sizeof text, "%d", (int)detsim__proc_pid());
  } else if (!strcmp(path, "/proc/thread-self") && detsim__self() != NULL) {
    snprintf(text, sizeof text, "%d/task/%d", (int)detsim__proc_pid(), (int)detsim__self()->tid);
  } else {
    return 0;
  }
  *done = true;
  return copy_link(text, buf, size);
}

DETSIM_EXPORT ssize_t __detsim_readlink(const char *path, char *buf, size_t size) {
  bool done;
  ssize_t r = sim_readlink(path, buf, size, &done);
  return done ? r : REAL(readlink)(path, buf, size);
}
DETSIM_INTERCEPT_ALIAS(readlink)

DETSIM_EXPORT ssize_t __detsim_readlinkat(int dirfd, const char *path, char *buf, size_t size) {
  bool done;
  ssize_t r = sim_readlink(path, buf, size, &done);
  return done ? r : REAL(readlinkat)(dirfd, path, buf, size);
}
DETSIM_INTERCEPT_ALIAS(readlinkat)

/* The fortified form of readlink (_FORTIFY_SOURCE). */
ssize_t __readlink_chk(const char *path, char *buf, size_t size, size_t buflen);
DETSIM_EXPORT ssize_t __detsim___readlink_chk(const char *path, char *buf, size_t size, size_t buflen) {
  bool done;
  ssize_t r = sim_readlink(path, buf, size, &done);
  return done ? r : REAL(__readlink_chk)(path, buf, size, buflen);
}
DETSIM_INTERCEPT_ALIAS(__readlink_chk)
