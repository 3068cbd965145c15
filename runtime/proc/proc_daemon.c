/* daemon(3) in the simulation (docs/processes.md, "daemon").
 *
 * glibc's daemon forks inside libc, where no interceptor sees the fork, so
 * the runtime replaces the function whole and does what glibc does: fork,
 * the parent _exit(0)s, the child starts a session (setsid), changes to
 * "/" unless nochdir, and points stdin, stdout and stderr at /dev/null
 * unless noclose (open O_RDWR, dup2, close).  Every step is the
 * simulation's own call, so the daemon stays a process of the world.
 *
 * A process that is not a forked child (the run's first process, a
 * scenario's node) whose only thread calls daemon does not fork for real:
 * its parent would _exit(0) at once, and the run (or the node) would end
 * with it.  It becomes the child in place: the world's next pid (its main
 * thread's tid too), a new session and group, init as its parent, its
 * children orphaned, no pending signal and no interval timer, as a fork's
 * child has; the parent that _exits is gone unseen (its own parent is
 * outside the world).  The run then goes on as the daemon and ends when it
 * ends.  pthread_atfork handlers do not run for that fork.  With other
 * threads running, the fork is a real one (threads do not survive a fork).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc/proc.h"
#include "trace/trace.h"
#include "intercept/intercept.h"
#include "core/core.h"
#include "sched/sched.h"
#include "world/world.h"

#define S detsim__ws
#define PC() ((uintptr_t)__builtin_return_address(0))

/* The child of daemon's fork, in this very process. */
static void become_own_child(detsim_thread *self) {
  pid_t pid = detsim__proc_alloc();
  detsim__plan_process_made(pid); /* a plan may name the daemon */
  detsim__proc_orphan_children();
  detsim__proc_set(pid, DETSIM_PID_INIT, detsim__proc_pgid(), detsim__proc_sid());
  if (detsim__in_world) S->nodes[detsim__node_index].vpid = pid;
  self->tid = pid;
  detsim__sig_fork_child();
  self->sig_pending = 0;
}

/* glibc's: /dev/null must be the null device, else ENODEV. */
static int to_dev_null(void) {
  int fd = open("/dev/null", O_RDWR);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3)) {
    close(fd);
    errno = ENODEV;
    return -1;
  }
  dup2(fd, STDIN_FILENO);
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  if (fd > 2) close(fd);
  return 0;
}

DETSIM_EXPORT int __detsim_daemon(int nochdir, int noclose) {
  detsim_thread *self = detsim__self();
  if (self == NULL || detsim__internal() || !detsim__proc_ids_ready()) return REAL(daemon)(nochdir, noclose);
  detsim__yield_aux(DETSIM_EV_proc_fork, NULL, PC(), 0);
  if (!detsim__proc_is_forked() && W.live == 1) {
    become_own_child(self);
  } else {
    pid_t child = fork();
    if (child < 0) return -1;
    if (child > 0) _exit(0);
  }
  if (setsid() < 0) return -1;
  if (!nochdir && chdir("/") != 0) return -1;
  if (!noclose) return to_dev_null();
  return 0;
}
DETSIM_INTERCEPT_ALIAS(daemon)
