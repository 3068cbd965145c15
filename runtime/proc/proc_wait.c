/* Waiting for children (proc.h): the one simulated wait behind waitpid,
 * wait, wait3, wait4 and waitid.
 *
 * A child is a process slot whose parent is this process.  A wait blocks
 * on a predicate over the world's header (some matching child ended, or no
 * matching child is left), which the scheduler evaluates when the world is
 * at this process; the child's end posts to its parent, so an idle parent
 * looks again.  The real zombie is reaped when the simulated wait reports
 * it, so its pid is never some other process's while the world knows it.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sched/sched.h"
#include "core/core.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "signal/signal.h"
#include "world/world.h"

#define S detsim__ws

struct wait_query {
  pid_t pid;     /* waitpid's: > 0 one child, -1 any, 0 or < -1 a group */
  int options;   /* WUNTRACED (WSTOPPED), WCONTINUED: stops and continues too */
  bool exits;    /* ended children count (waitpid always; waitid with WEXITED) */
  int found;     /* the slot of a matching child with something to report, or -1 */
  int what;      /* what it reports (REPORT_*) */
  bool any_live; /* a matching child still runs */
};

/* What a child has for a wait: its end, or its last stop or continue
 * (proc_stop.c's stop_report) not yet reported. */
enum { REPORT_NONE, REPORT_EXIT, REPORT_STOP, REPORT_CONTINUE };
#define CONTINUED_STATUS 0xffff

/* Whether child slot j is one waitpid's pid -1, 0 or -pgid asks for
 * (virtual groups: proc/proc.h). */
static bool in_group(pid_t pid, unsigned j) {
  if (pid == -1) return true;
  return detsim__proc_pgid_of_node(j) == (pid == 0 ? detsim__proc_pgid() : -pid);
}

static bool auto_reaps(void) {
  struct sigaction sa;
  detsim__sig_action(SIGCHLD, NULL, &sa);
  return sa.sa_handler == SIG_IGN || (sa.sa_flags & SA_NOCLDWAIT);
}

/* SIGCHLD ignored or SA_NOCLDWAIT: an ended child leaves no zombie. */
static void reap_silently(void) {
  for (unsigned j = 0; j < S->n_nodes; j++) {
    struct detsim_world_node *c = &S->nodes[j];
    if (c->parent != (int32_t)detsim__node_index || c->reaped) continue;
    if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == DETSIM_NODE_EXITED) c->reaped = 1;
  }
}

static int live_report(const struct detsim_world_node *c, int options) {
  if (c->stop_report == 0) return REPORT_NONE;
  if (c->stop_report == CONTINUED_STATUS) return (options & WCONTINUED) ? REPORT_CONTINUE : REPORT_NONE;
  return (options & WUNTRACED) ? REPORT_STOP : REPORT_NONE;
}

static void scan(struct wait_query *q, bool zombies_count) {
  q->found = -1;
  q->what = REPORT_NONE;
  q->any_live = false;
  if (!detsim__in_world) return;
  for (unsigned j = 0; j < S->n_nodes; j++) {
    const struct detsim_world_node *c = &S->nodes[j];
    if (c->parent != (int32_t)detsim__node_index || c->reaped) continue;
    if (q->pid > 0 ? c->vpid != q->pid : !in_group(q->pid, j)) continue;
    int what;
    if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == DETSIM_NODE_EXITED) {
      what = zombies_count && q->exits ? REPORT_EXIT : REPORT_NONE;
    } else {
      q->any_live = true;
      what = live_report(c, q->options);
    }
    if (what != REPORT_NONE && q->found < 0) {
      q->found = (int)j;
      q->what = what;
    }
  }
}

static bool wait_ready(void *arg) {
  struct wait_query *q = arg;
  struct wait_query now = *q;
  scan(&now, !auto_reaps());
  return now.found >= 0 || !now.any_live;
}

static void fill_info(siginfo_t *info, const struct detsim_world_node *c, int what) {
  memset(info, 0, sizeof *info);
  info->si_signo = SIGCHLD;
  info->si_pid = c->vpid;
  info->si_uid = getuid();
  if (what == REPORT_STOP) {
    info->si_code = CLD_STOPPED;
    info->si_status = WSTOPSIG(c->stop_report);
  } else if (what == REPORT_CONTINUE) {
    info->si_code = CLD_CONTINUED;
    info->si_status = SIGCONT;
  } else if (WIFEXITED(c->wait_status)) {
    info->si_code = CLD_EXITED;
    info->si_status = WEXITSTATUS(c->wait_status);
  } else {
    info->si_code = WCOREDUMP(c->wait_status) ? CLD_DUMPED : CLD_KILLED;
    info->si_status = WTERMSIG(c->wait_status);
  }
}

pid_t detsim__proc_wait(pid_t pid, int *status, int options, siginfo_t *info, bool waitid_form, uintptr_t pc) {
  detsim__yield_aux(DETSIM_EV_proc_wait, NULL, pc, (uint32_t)pid);
  if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | WEXITED | WSTOPPED | WNOWAIT | __WALL | __WCLONE | __WNOTHREAD)) {
    errno = EINVAL;
    return -1;
  }
  struct wait_query q = { pid, options, !waitid_form || (options & WEXITED), -1, REPORT_NONE, false };
  for (;;) {
    bool reaps = auto_reaps();
    if (reaps) reap_silently();
    scan(&q, true);
    if (q.found >= 0) break;
    if (!q.any_live) {
      errno = ECHILD;
      return -1;
    }
    if (options & WNOHANG) {
      if (info) memset(info, 0, sizeof *info);
      return 0;
    }
    int r = detsim__block_intr(DETSIM_EV_proc_wait, S, wait_ready, &q, DETSIM_NO_DEADLINE);
    /* A cancel request ends the wait (the caller's cancellation point acts). */
    if (r == EINTR && (!detsim__restartable() || detsim__cancel_cut())) {
      errno = EINTR;
      return -1;
    }
  }
  struct detsim_world_node *c = &S->nodes[q.found];
  if (q.what != REPORT_EXIT) {
    /* A stop or continue: reported once (unless WNOWAIT), the child
     * stays. */
    if (status) *status = c->stop_report;
    if (info) fill_info(info, c, q.what);
    if (!(waitid_form && (options & WNOWAIT))) c->stop_report = 0;
    return c->vpid;
  }
  if (S->exec_outside[q.found] && c->pid > 0) {
    /* It runs a binary outside the simulation (exec_native=1): the kernel
     * knows its status.  A blocking wait holds the world until it ends. */
    int st = 0;
    pid_t r;
    while ((r = REAL(waitpid)(c->pid, &st, (options & WNOHANG) ? WNOHANG : 0)) < 0 && errno == EINTR) {
    }
    if (r == 0) {
      if (info) memset(info, 0, sizeof *info);
      return 0;
    }
    c->wait_status = r > 0 ? st : 0;
    c->pid = 0;
  }
  if (status) *status = c->wait_status;
  if (info) fill_info(info, c, REPORT_EXIT);
  if (waitid_form && (options & WNOWAIT)) return c->vpid;
  c->reaped = 1;
  if (c->pid > 0) {
    /* Its process handed the world over and is ending for real. */
    while (REAL(waitpid)(c->pid, NULL, __WALL) < 0 && errno == EINTR) {
    }
    c->pid = 0;
  }
  return c->vpid;
}
