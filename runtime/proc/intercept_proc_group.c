/* Interceptors: sessions and process groups (docs/processes.md,
 * "Sessions and groups"): setsid, setpgid, setpgrp, and the terminal's
 * foreground group (tcgetpgrp, tcsetpgrp, tcgetsid).
 *
 * A process's group and session live in its slot of the world (proc/proc.h),
 * so kill(-pgid), killpg and waitpid(-pgid) of every process see a change
 * at once.  The errors are Linux's (kernel/sys.c, setpgid and setsid), in
 * its order.  Changing a group is a yield point: a parent's
 * setpgid(child) and the child's own race as they do in Linux.
 *
 * A simulated process has no controlling terminal (its output is compared
 * against a native run's, whatever the terminal): tcgetpgrp and friends
 * fail with ENOTTY, as Linux's do for a process without one.
 */
#include <errno.h>
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include "net/net.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "world/world.h"

#define S detsim__ws
#define PC() ((uintptr_t)__builtin_return_address(0))

static bool simulated(void) { return detsim__proc_ids_ready() && detsim__self() != NULL && !detsim__internal(); }

static long fail(int err) {
  errno = err;
  return -1;
}

DETSIM_EXPORT pid_t __detsim_setsid(void) {
  if (!simulated()) return REAL(setsid)();
  detsim__yield_aux(DETSIM_EV_proc_group, NULL, PC(), 0);
  pid_t me = detsim__proc_pid();
  /* A group leader may not leave its group, nor may any process whose pid
   * is some group's id (it would lead two). */
  if (detsim__proc_pgid() == me || detsim__proc_group_exists(me, 0)) return (pid_t)fail(EPERM);
  detsim__proc_set_group(detsim__in_world ? detsim__node_index : 0, me, me);
  return me;
}
DETSIM_INTERCEPT_ALIAS(setsid)

/* 0 or the errno of setpgid(pid, pgid), with the group changed. */
static int sim_setpgid(pid_t pid, pid_t pgid) {
  pid_t me = detsim__proc_pid();
  pid_t my_sid = detsim__proc_sid();
  if (pid == 0) pid = me;
  if (pgid == 0) pgid = pid;
  if (pgid < 0) return EINVAL;
  int target;
  if (pid == me) {
    target = detsim__in_world ? (int)detsim__node_index : -1;
  } else {
    target = detsim__proc_node_of_any(pid);
    /* Only itself or a child of its own. */
    if (target < 0 || S->nodes[target].parent != (int32_t)detsim__node_index) return ESRCH;
    if (S->nodes[target].sid != my_sid) return EPERM;
    /* A child that has exec'd (its slot's incarnation counts its images). */
    if (S->nodes[target].incarnation > 1) return EACCES;
  }
  pid_t target_sid = target < 0 ? my_sid : detsim__proc_sid_of_node((unsigned)target);
  /* A session leader stays the leader of its group. */
  if (target_sid == pid) return EPERM;
  /* A group of another session, or none, may not be joined. */
  if (pgid != pid && !detsim__proc_group_exists(pgid, my_sid)) return EPERM;
  detsim__proc_set_group(target < 0 ? 0 : (unsigned)target, pgid, target_sid);
  return 0;
}

DETSIM_EXPORT int __detsim_setpgid(pid_t pid, pid_t pgid) {
  if (!simulated()) return REAL(setpgid)(pid, pgid);
  detsim__yield_aux(DETSIM_EV_proc_group, NULL, PC(), (uint32_t)pid);
  int r = sim_setpgid(pid, pgid);
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(setpgid)

DETSIM_EXPORT int __detsim_setpgrp(void) {
  if (!simulated()) return REAL(setpgrp)();
  detsim__yield_aux(DETSIM_EV_proc_group, NULL, PC(), 0);
  int r = sim_setpgid(0, 0);
  return r ? (int)fail(r) : 0;
}
DETSIM_INTERCEPT_ALIAS(setpgrp)

/* No controlling terminal: ENOTTY for any open descriptor, EBADF for a
 * closed one (Linux's order: the descriptor is looked up first). */
static int no_terminal(int fd) {
  if (net_fd_get(fd) != NULL) return ENOTTY;
  return REAL(fcntl)(fd, F_GETFD) < 0 ? EBADF : ENOTTY;
}

DETSIM_EXPORT pid_t __detsim_tcgetpgrp(int fd) {
  if (!simulated()) return REAL(tcgetpgrp)(fd);
  return (pid_t)fail(no_terminal(fd));
}
DETSIM_INTERCEPT_ALIAS(tcgetpgrp)

DETSIM_EXPORT int __detsim_tcsetpgrp(int fd, pid_t pgrp) {
  if (!simulated()) return REAL(tcsetpgrp)(fd, pgrp);
  return (int)fail(no_terminal(fd));
}
DETSIM_INTERCEPT_ALIAS(tcsetpgrp)

DETSIM_EXPORT pid_t __detsim_tcgetsid(int fd) {
  if (!simulated()) return REAL(tcgetsid)(fd);
  return (pid_t)fail(no_terminal(fd));
}
DETSIM_INTERCEPT_ALIAS(tcgetsid)
