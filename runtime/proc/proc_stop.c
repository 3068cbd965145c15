/* Job control: a process stopped by a stop signal and continued by SIGCONT
 * (proc.h, docs/processes.md "Stops and continues").
 *
 * Rules of this file:
 *  - A stopped process is a slot with `stopped` set: the world never
 *    chooses it (world.c), so none of its threads runs; its timers are
 *    virtual deadlines that keep their times, and what they and other
 *    processes send it waits, pending, until it runs again.
 *  - A stop takes effect when one of the process's threads takes the stop
 *    signal at its default action (signal.c), as Linux stops a process in
 *    get_signal: that thread gives the world away and waits.  A SIGCONT
 *    (and a SIGKILL) acts when it is sent, by the sender, as Linux's
 *    prepare_signal: the sender holds the world and clears the flag.
 *  - The wait's report (stop_report) and the parent's SIGCHLD are made
 *    where the change is made, so both come in the same place of every run
 *    of the seed.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "core/core.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "signal/signal.h"
#include "time/time.h"
#include "trace/trace.h"
#include "world/world.h"

#define S detsim__ws

/* waitpid's word for a continued process (WIFCONTINUED). */
#define CONTINUED_STATUS 0xffff

static void signal_text(int sig, char *out, size_t n) {
  const char *abbrev = sigabbrev_np(sig);
  snprintf(out, n, "SIG%s", abbrev ? abbrev : "?");
}

/* The parent of slot j hears of its stop or continue: SIGCHLD (unless its
 * SIGCHLD has SA_NOCLDSTOP), and its waits look again either way. */
static void tell_parent(unsigned j, int code, int status) {
  const struct detsim_world_node *c = &S->nodes[j];
  if (c->parent < 0) return;
  unsigned p = (unsigned)c->parent;
  struct detsim_world_node *pn = &S->nodes[p];
  if (p == detsim__node_index) {
    if (!pn->nocldstop) detsim__sig_send_chld(c->vpid, code, status);
    return;
  }
  if (!pn->nocldstop) {
    /* A standard signal keeps its first instance's siginfo. */
    if (!(pn->sig_inbox & (1ull << (SIGCHLD - 1)))) {
      pn->chld_pid = c->vpid;
      pn->chld_code = code;
      pn->chld_status = status;
    }
    pn->sig_inbox |= 1ull << (SIGCHLD - 1);
  }
  detsim__world_post(p, detsim__now_ns());
}

/* No process can continue a process alone (no world: it never forked). */
_Noreturn static void stopped_alone(int sig) {
  char name[16], extra[48];
  signal_text(sig, name, sizeof name);
  detsim__msg("deadlock: process %d stopped (%s, its default action) and no process of the run can continue it",
              (int)detsim__proc_pid(), name);
  snprintf(extra, sizeof extra, "stopped=%d", (int)detsim__proc_pid());
  detsim__finish(DETSIM_CLASS_deadlock, 0, extra);
}

void detsim__proc_stop(detsim_thread *self, int sig) {
  CHECK(self != NULL && W.current == self);
  detsim__event(DETSIM_EV_proc_stop, self, NULL, 0, (uint32_t)sig);
  if (!detsim__in_world) stopped_alone(sig);
  struct detsim_world_node *me = &S->nodes[detsim__node_index];
  me->stopped = (uint32_t)sig;
  me->stop_report = (sig << 8) | 0x7f;
  tell_parent(detsim__node_index, CLD_STOPPED, sig);
  /* Every thread of the process is off the world's choices until a
   * SIGCONT (or SIGKILL) clears the flag: this one gives the world away,
   * and the world comes back only then (or ends as a deadlock naming it). */
  while (__atomic_load_n(&me->stopped, __ATOMIC_ACQUIRE) != 0)
    detsim__sched_world_switch(self, detsim__sched_world_choose_when_stuck(self, NULL, true));
}

void detsim__proc_continue(unsigned j, int sig) {
  struct detsim_world_node *n = &S->nodes[j];
  if (n->stopped == 0) return;
  n->stopped = 0;
  detsim__event(DETSIM_EV_proc_continue, detsim__self(), NULL, 0, (uint32_t)n->vpid);
  if (sig == SIGKILL) {
    /* It wakes only to die: its end is the report. */
    n->stop_report = 0;
    return;
  }
  n->stop_report = CONTINUED_STATUS;
  tell_parent(j, CLD_CONTINUED, SIGCONT);
}

bool detsim__proc_is_stopped(unsigned j) { return detsim__in_world && j < S->n_nodes && S->nodes[j].stopped != 0; }

void detsim__proc_report_stopped(char *extra, size_t size) {
  size_t k = 0;
  if (size) extra[0] = '\0';
  if (!detsim__in_world) return;
  for (unsigned j = 0; j < S->n_nodes; j++) {
    const struct detsim_world_node *n = &S->nodes[j];
    if (n->stopped == 0 || __atomic_load_n(&n->state, __ATOMIC_ACQUIRE) != DETSIM_NODE_READY) continue;
    char name[16];
    signal_text((int)n->stopped, name, sizeof name);
    detsim__msg("stopped: process %d (%.*s) was stopped by %s and nothing is left that could continue it",
                (int)n->vpid, DETSIM_WORLD_NAME_BYTES, n->name, name);
    int w = snprintf(extra + k, size - k, "%s%d", k ? "," : "stopped=", (int)n->vpid);
    if (w > 0 && (size_t)w < size - k) k += (size_t)w;
  }
}
