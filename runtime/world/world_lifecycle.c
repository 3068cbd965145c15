/* Crash and restart of nodes (world_faults.c draws them; world_abi.h).
 *
 * A crash is applied by whichever node holds the world when its time
 * comes.  The crashed node is marked DOWN at once, so no choice ever picks
 * it again and its last event is the one before the crash; the launcher
 * then kills its process for real (SIGKILL) at its own pace, which no
 * history can see.  A restart is the launcher's job too: the node holding
 * the world rings the launcher's bell and waits, with the world still in
 * its hands, until the fresh process has attached and parked, so the
 * restart takes the same place in every run of the seed.
 */
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/core.h"
#include "time/time.h"
#include "net/net.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "signal/signal.h"
#include "world/world.h"
#include "fuzz/fuzz.h"

#define S detsim__ws

void detsim__sched_crash_self(void) __attribute__((noreturn));

bool detsim__world_node_silent(unsigned node) {
  return detsim__in_world && node < S->n_nodes &&
         __atomic_load_n(&S->nodes[node].state, __ATOMIC_ACQUIRE) == DETSIM_NODE_DOWN && S->nodes[node].down_silent;
}

void detsim__world_crash(unsigned node, bool silent) {
  struct detsim_world_node *n = &S->nodes[node];
  CHECK_EQ(__atomic_load_n(&n->state, __ATOMIC_ACQUIRE), DETSIM_NODE_READY);
  n->down_silent = silent;
  /* At level 3 a dead host is a power loss: its disk keeps only what was
   * durable, as its next incarnation finds it (runtime/disk/). */
  if (silent && S->level >= 3) n->disk_lost_power = 1;
  __atomic_store_n(&n->state, DETSIM_NODE_DOWN, __ATOMIC_RELEASE);
  /* A node is a host: every process forked on it dies with it. */
  detsim__proc_host_down(node);
  net_node_crash(node, silent);
  /* Its peers' waits must look at what the crash said to them. */
  detsim__world_touch();
  /* A process of the crashed host hands the world over before it may be
   * killed. */
  if (node == detsim__host_index) detsim__sched_crash_self();
  detsim__world_release_crashed(node);
}

void detsim__world_release_crashed(unsigned node) {
  detsim__proc_host_release(node);
  __atomic_store_n(&S->nodes[node].kill_me, 1, __ATOMIC_RELEASE);
  detsim__world_ring_launcher();
}

void detsim__world_restart(unsigned node) {
  struct detsim_world_node *n = &S->nodes[node];
  uint32_t state = __atomic_load_n(&n->state, __ATOMIC_ACQUIRE);
  CHECK(state == DETSIM_NODE_DOWN || (state == DETSIM_NODE_EXITED && n->term_sent));
  CHECK(node != detsim__host_index);
  S->now_ns = detsim__now_ns(); /* for the launcher's note in the log */
  /* The fresh process finds none of its dead predecessors' epolls. */
  net_epoll_host_restart(node);
  __atomic_store_n(&S->restart_done, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&S->restart_request, node + 1, __ATOMIC_RELEASE);
  detsim__world_ring_launcher();
  while (__atomic_load_n(&S->restart_done, __ATOMIC_ACQUIRE) == 0)
    REAL(syscall)(SYS_futex, &S->restart_done, FUTEX_WAIT, 0, NULL, NULL, 0);
  S->restart_request = 0;
  CHECK_EQ(__atomic_load_n(&n->state, __ATOMIC_ACQUIRE), DETSIM_NODE_READY);
  /* The host is back (the new process is parked and has no socket yet). */
  if (n->down_silent) net_node_restart(node);
  n->down_silent = 0;
  n->term_sent = 0;
  n->sig_inbox = 0;
  n->sig_flush = 0;
  /* A new boot: nothing of its predecessor's job control or ports. */
  n->stopped = 0;
  n->stop_report = 0;
  n->ports_ready = 0;
  if (n->disk_rolled_back) {
    /* Its disk was rolled back before its main: what it lost is part of
     * the history, at the restart's place. */
    n->disk_rolled_back = 0;
    S->fault_counts[DETSIM_FAULT_POWER_LOSS]++;
    uint64_t w = n->disk_lost_writes < 0xffff ? n->disk_lost_writes : 0xffff;
    uint64_t m = n->disk_lost_names < 0xffff ? n->disk_lost_names : 0xffff;
    detsim__event(DETSIM_EV_disk_power_loss, detsim__self(), NULL, 0, (uint32_t)(w | m << 16));
  }
  detsim__world_touch();
}

/* SIGTERM from the world: the node takes it as a process-directed signal,
 * now if it holds the world, else when the world next comes to it. */
void detsim__world_term(unsigned node) {
  struct detsim_world_node *n = &S->nodes[node];
  n->term_sent = 1;
  if (node == detsim__node_index) {
    detsim__sig_send_from(NULL, SIGTERM, SI_USER, DETSIM_SIGVAL_NONE, DETSIM_PID_PARENT);
    return;
  }
  n->sig_inbox |= 1ull << (SIGTERM - 1);
  n->sig_from[SIGTERM - 1] = DETSIM_PID_PARENT; /* the orchestrator's */
  detsim__world_post(node, detsim__now_ns());
}

void detsim__world_take_signals(void) {
  struct detsim_world_node *me = &S->nodes[detsim__node_index];
  if (me->sig_flush) detsim__sig_discard(me->sig_flush);
  me->sig_flush = 0;
  for (uint64_t in = me->sig_inbox; in; in &= in - 1) {
    int sig = __builtin_ctzll(in) + 1;
    /* A child's end carries its siginfo (CLD_*); any other is a kill. */
    if (sig == SIGCHLD && me->chld_code != 0) detsim__sig_send_chld(me->chld_pid, me->chld_code, me->chld_status);
    else detsim__sig_send_from(NULL, sig, SI_USER, DETSIM_SIGVAL_NONE, me->sig_from[sig - 1]);
  }
  me->sig_inbox = 0;
  me->chld_code = 0;
}

#define STOP_BITS \
  (1ull << (SIGSTOP - 1) | 1ull << (SIGTSTP - 1) | 1ull << (SIGTTIN - 1) | 1ull << (SIGTTOU - 1))

/* Signal `sig` waits in node j's inbox, from this process.  As Linux's
 * prepare_signal, at the sending: a stop signal discards a SIGCONT still
 * waiting, a SIGCONT the stop signals, and a SIGCONT or SIGKILL wakes a
 * stopped process (proc_stop.c); the target's own pending sets follow
 * when it takes the signal (signal.c). */
static void post_signal(unsigned j, int sig) {
  struct detsim_world_node *n = &S->nodes[j];
  if (sig == 0) return;
  if ((1ull << (sig - 1)) & STOP_BITS) {
    n->sig_inbox &= ~(1ull << (SIGCONT - 1));
    n->sig_flush |= 1ull << (SIGCONT - 1);
  }
  if (sig == SIGCONT) {
    n->sig_inbox &= ~STOP_BITS;
    n->sig_flush |= STOP_BITS;
  }
  if (sig == SIGCONT || sig == SIGKILL) detsim__proc_continue(j, sig);
  n->sig_inbox |= 1ull << (sig - 1);
  n->sig_from[sig - 1] = detsim__proc_pid();
  detsim__world_post(j, detsim__now_ns());
}

/* Whether slot j is a zombie: a forked process not waited for yet.  A
 * signal to it is accepted and lost, as Linux does. */
static bool zombie(const struct detsim_world_node *n) {
  return __atomic_load_n(&n->state, __ATOMIC_ACQUIRE) == DETSIM_NODE_EXITED && n->host1 != 0 && !n->reaped;
}

int detsim__world_kill(pid_t pid, int sig) {
  if (!detsim__in_world || pid == 0 || pid == -1) return -1;
  if (pid < 0) return detsim__world_kill_group(-pid, sig) > 0 ? 0 : -1;
  for (unsigned j = 0; j < S->n_nodes; j++) {
    struct detsim_world_node *n = &S->nodes[j];
    if (j == detsim__node_index || n->vpid != pid) continue;
    if (zombie(n)) return 0;
    if (__atomic_load_n(&n->state, __ATOMIC_ACQUIRE) != DETSIM_NODE_READY) continue;
    post_signal(j, sig);
    return 0;
  }
  return -1;
}

unsigned detsim__world_kill_group(pid_t pgid, int sig) {
  if (!detsim__in_world) return 0;
  unsigned sent = 0;
  for (unsigned j = 0; j < S->n_nodes; j++) {
    struct detsim_world_node *n = &S->nodes[j];
    if (j == detsim__node_index || detsim__proc_pgid_of_node(j) != pgid) continue;
    if (zombie(n)) {
      sent++;
      continue;
    }
    if (__atomic_load_n(&n->state, __ATOMIC_ACQUIRE) != DETSIM_NODE_READY) continue;
    post_signal(j, sig);
    sent++;
  }
  return sent;
}

unsigned detsim__world_kill_all(int sig) {
  if (!detsim__in_world) return 0;
  unsigned sent = 0;
  for (unsigned j = 0; j < S->n_nodes; j++) {
    if (j == detsim__node_index || __atomic_load_n(&S->nodes[j].state, __ATOMIC_ACQUIRE) != DETSIM_NODE_READY) continue;
    post_signal(j, sig);
    sent++;
  }
  return sent;
}

void detsim__world_term_default(void) {
  if (!detsim__in_world || !S->nodes[detsim__node_index].term_sent || detsim__self() == NULL) return;
  /* As the kernel ends a process: its sockets close (all of them, even one
   * a thread is blocked on, as for a dead process), and the world goes on
   * without it until its restart. */
  detsim__msg("SIGTERM's default action ends this node: it leaves the world until its restart");
  fflush(NULL);
  net_node_crash(detsim__node_index, false);
  detsim__fuzz_write_out();
  detsim__world_node_exit(128 + SIGTERM);
  REAL(_exit)(128 + SIGTERM);
}

void detsim__world_label(char *out, size_t size, const char *base) {
  if (!detsim__in_world) {
    snprintf(out, size, "%s", base);
    return;
  }
  const struct detsim_world_node *me = &S->nodes[detsim__node_index];
  unsigned inc = me->incarnation;
  /* A forked process by its pid, unique in the run (its slot may have
   * served another before it). */
  if (me->host1) {
    if (inc <= 1) snprintf(out, size, "%s/pid/%d", base, (int)me->vpid);
    else snprintf(out, size, "%s/pid/%d/incarnation/%u", base, (int)me->vpid, inc);
    return;
  }
  /* The first incarnation keeps the labels worlds always had. */
  if (inc <= 1) snprintf(out, size, "%s/node/%u", base, detsim__node_index);
  else snprintf(out, size, "%s/node/%u/incarnation/%u", base, detsim__node_index, inc);
}

void detsim__world_host_label(char *out, size_t size, const char *base) {
  /* A run's own world is one host, the one it was before its first fork. */
  if (!detsim__in_world || detsim__world_solo) {
    snprintf(out, size, "%s", base);
    return;
  }
  /* Its boots, not its images: an exec is the same machine. */
  unsigned boot = S->nodes[detsim__host_index].boots;
  if (boot <= 1) snprintf(out, size, "%s/node/%u", base, detsim__host_index);
  else snprintf(out, size, "%s/node/%u/incarnation/%u", base, detsim__host_index, boot);
}
