/* Raw system calls the runtime models itself, other than futex (futex.c).
 *
 * membarrier: one simulated thread runs at a time and each switch is a full
 * barrier, so every membarrier command already holds; the call is a yield
 * point and keeps Linux's rules (the expedited kinds need their
 * registration first: EPERM; unknown commands and flags: EINVAL).
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <stdbool.h>
#include <sys/syscall.h>

#include "sched/sched.h"
#include "intercept/intercept.h"

/* The commands the simulated kernel answers to in MEMBARRIER_CMD_QUERY. */
#define MEMBARRIER_SIMULATED                                                                       \
  (MEMBARRIER_CMD_GLOBAL | MEMBARRIER_CMD_GLOBAL_EXPEDITED | MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED | \
   MEMBARRIER_CMD_PRIVATE_EXPEDITED | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED |                   \
   MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE)

static bool registered_private, registered_sync_core;

long detsim__sys_membarrier(const long a[6]) {
  int cmd = (int)a[0];
  unsigned flags = (unsigned)a[1];
  detsim__yield_aux(DETSIM_EV_syscall, NULL, detsim__sys_caller, SYS_membarrier);
  if (flags != 0) return detsim__sys_fail(EINVAL);
  switch (cmd) {
  case MEMBARRIER_CMD_QUERY:
    return MEMBARRIER_SIMULATED;
  case MEMBARRIER_CMD_GLOBAL:
  case MEMBARRIER_CMD_GLOBAL_EXPEDITED:
  case MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED:
    return 0;
  case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED:
    registered_private = true;
    return 0;
  case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE:
    registered_sync_core = true;
    return 0;
  case MEMBARRIER_CMD_PRIVATE_EXPEDITED:
    return registered_private ? 0 : detsim__sys_fail(EPERM);
  case MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE:
    return registered_sync_core ? 0 : detsim__sys_fail(EPERM);
  default:
    return detsim__sys_fail(EINVAL);
  }
}
