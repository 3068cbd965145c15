/* Virtual process and thread ids (proc/proc.h).
 *
 * Rules of this file:
 *  - The counter is the world's (in its shared header) in a world, this
 *    process's own otherwise; only the baton holder moves it.
 *  - Nothing here asks the kernel: the interceptors of getpid and friends
 *    (intercept_proc_ids.c) fall back to REAL themselves before the ids
 *    exist.
 */
#include "proc/proc.h"

#include <inttypes.h>
#include <stdio.h>

#include "core/core.h"
#include "limits.h"
#include "world/world.h"

#define S detsim__ws

static bool ready;
static pid_t my_pid, my_ppid, my_pgid, my_sid;
static int32_t last_local;

static int32_t *counter(void) { return detsim__in_world ? &S->last_pid : &last_local; }

pid_t detsim__proc_alloc(void) {
  int32_t *last = counter();
  int32_t next = *last == 0 ? DETSIM_PID_FIRST : *last + 1;
  if (next >= DETSIM_PID_MAX) {
    char extra[64];
    snprintf(extra, sizeof extra, "limit=pid_max=%d", DETSIM_PID_MAX);
    detsim__msg("the run reached the limit pid_max=%d: every virtual pid and tid below it was handed out (ids are "
                "never reused in a run)", DETSIM_PID_MAX);
    detsim__finish(DETSIM_CLASS_inconclusive, 0, extra);
  }
  *last = next;
  return next;
}

void detsim__proc_ids_init(void) {
  CHECK(!ready);
  pid_t pid = detsim__proc_alloc();
  /* A first process leads its own group and session, as a host's daemon
   * started by its init would. */
  detsim__proc_set(pid, DETSIM_PID_PARENT, pid, pid);
  if (detsim__in_world) {
    struct detsim_world_node *me = &S->nodes[detsim__node_index];
    me->vpid = pid;
    me->pgid = pid;
    me->sid = pid;
  }
}

void detsim__proc_ids_forget(void) { ready = false; }

bool detsim__proc_ids_ready(void) { return ready; }

void detsim__proc_set(pid_t pid, pid_t ppid, pid_t pgid, pid_t sid) {
  CHECK_GE(pid, DETSIM_PID_FIRST);
  my_pid = pid;
  my_ppid = ppid;
  my_pgid = pgid;
  my_sid = sid;
  ready = true;
}

pid_t detsim__proc_pid(void) { return my_pid; }
/* An orphan's parent is init, as for a process whose parent died (its
 * reaper is the run's first process in the kernel, not in the world). */
pid_t detsim__proc_ppid(void) { return detsim__proc_orphan() ? DETSIM_PID_INIT : my_ppid; }
/* In a world the slot is the truth (another process's setpgid may have
 * moved this one); alone, this process's own copy. */
pid_t detsim__proc_pgid(void) { return detsim__in_world ? S->nodes[detsim__node_index].pgid : my_pgid; }
pid_t detsim__proc_sid(void) { return detsim__in_world ? S->nodes[detsim__node_index].sid : my_sid; }

void detsim__proc_set_group(unsigned node, pid_t pgid, pid_t sid) {
  if (detsim__in_world) {
    CHECK_LT(node, S->n_nodes);
    S->nodes[node].pgid = pgid;
    S->nodes[node].sid = sid;
  }
  if (!detsim__in_world || node == detsim__node_index) {
    my_pgid = pgid;
    my_sid = sid;
  }
}

pid_t detsim__proc_vpid_of_kernel(pid_t kernel_pid) {
  if (!detsim__in_world || kernel_pid <= 0) return kernel_pid;
  for (unsigned j = 0; j < S->n_nodes; j++)
    if (S->nodes[j].pid == kernel_pid && S->nodes[j].vpid > 0) return S->nodes[j].vpid;
  return kernel_pid;
}

int detsim__proc_node_of(pid_t pid) {
  if (!detsim__in_world || pid < DETSIM_PID_FIRST) return -1;
  for (unsigned j = 0; j < S->n_nodes; j++)
    if (S->nodes[j].vpid == pid && __atomic_load_n(&S->nodes[j].state, __ATOMIC_ACQUIRE) == DETSIM_NODE_READY)
      return (int)j;
  return -1;
}

int detsim__proc_node_of_any(pid_t pid) {
  if (!detsim__in_world || pid < DETSIM_PID_FIRST) return -1;
  for (unsigned j = 0; j < S->n_nodes; j++) {
    const struct detsim_world_node *n = &S->nodes[j];
    if (n->vpid != pid) continue;
    uint32_t st = __atomic_load_n(&n->state, __ATOMIC_ACQUIRE);
    if (st == DETSIM_NODE_READY || (st == DETSIM_NODE_EXITED && n->host1 != 0 && !n->reaped)) return (int)j;
  }
  return -1;
}

bool detsim__proc_group_exists(pid_t pgid, pid_t sid) {
  if (!detsim__in_world) return pgid == my_pgid && (sid == 0 || sid == my_sid);
  for (unsigned j = 0; j < S->n_nodes; j++) {
    if (detsim__proc_node_of_any(S->nodes[j].vpid) != (int)j) continue;
    if (S->nodes[j].pgid == pgid && (sid == 0 || S->nodes[j].sid == sid)) return true;
  }
  return false;
}

pid_t detsim__proc_pid_of_node(unsigned node) {
  if (!detsim__in_world || node >= S->n_nodes) return 0;
  return S->nodes[node].vpid;
}

pid_t detsim__proc_pgid_of_node(unsigned node) {
  if (!detsim__in_world || node >= S->n_nodes) return 0;
  return S->nodes[node].pgid;
}

pid_t detsim__proc_sid_of_node(unsigned node) {
  if (!detsim__in_world || node >= S->n_nodes) return 0;
  return S->nodes[node].sid;
}

void detsim__proc_ids_enter_world(void) {
  CHECK(detsim__in_world);
  S->last_pid = last_local;
  struct detsim_world_node *me = &S->nodes[detsim__node_index];
  me->vpid = my_pid;
  me->pgid = my_pgid;
  me->sid = my_sid;
}
