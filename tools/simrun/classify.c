/* One finished child to one record: its class from the result line, or
 * simrun's own verdicts for what the runtime could not say:
 *
 *   stopped at --timeout (SIGTERM, then SIGKILL after a grace period):
 *     with its result line (the runtime's, naming the signal): that
 *     class                                     inconclusive reason=timeout signal=SIGTERM
 *     without one                               inconclusive reason=timeout
 *     (unless it printed no first line and its ELF does not link the
 *     runtime: then a harness error)
 *   killed by a signal, no result line          inconclusive reason=killed signal=SIG...
 *   exit status 89 with "detsim: error:"        usage error (the options): exit 2
 *   no first line (unless quiet=1)              harness error: not a simulation build, exit 3
 *   exited without a result line                harness error: the contract is broken, exit 3
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "simrun.h"
#include "st_child.h"
#include "st_classes.h"
#include "st_limits.h"

static _Noreturn void harness(void (*cleanup)(void), const char *prog, uint64_t seed, const char *what,
                              const char *text) {
  cleanup();
  char *head = st_xstrdup(text);
  /* The first lines of its stderr, to show what ran instead. */
  int lines = 0;
  char *p = head;
  while (*p && lines < 5) {
    char *nl = strchr(p, '\n');
    if (!nl) break;
    p = nl + 1;
    lines++;
  }
  *p = '\0';
  fprintf(stderr, "simrun: harness error: '%s' (seed %llu) %s\n", prog, (unsigned long long)seed, what);
  if (*head) {
    fprintf(stderr, "simrun: its stderr began:\n");
    for (char *l = head; *l;) {
      char *nl = strchr(l, '\n');
      fprintf(stderr, "  | %.*s\n", (int)(nl ? nl - l : (long)strlen(l)), l);
      if (!nl) break;
      l = nl + 1;
    }
  } else {
    fprintf(stderr, "simrun: its stderr was empty\n");
  }
  fprintf(stderr, "simrun: stopping the sweep (exit status %d)\n", ST_EXIT_HARNESS);
  exit(ST_EXIT_HARNESS);
}

/* text without its "detsim: point" lines (malloc'd). */
static char *without_point_lines(const char *text) {
  struct st_buf b = { 0 };
  st_buf_puts(&b, "");
  for (const char *l = text; *l;) {
    const char *nl = strchr(l, '\n');
    size_t len = nl ? (size_t)(nl - l + 1) : strlen(l);
    if (strncmp(l, "detsim: point ", 14)) st_buf_add(&b, l, len);
    l += len;
  }
  return b.s;
}

void simrun_classify(struct st_child *c, uint64_t seed, uint64_t index, const struct simrun_plan *plan,
                     const struct simrun_sweep_info *info, void (*cleanup)(void)) {
  char *text = st_capture_text(&c->err);
  struct st_outcome o;
  st_outcome_parse(text, &o);
  int ws = c->wait_status;
  const char *prog = plan->a->argv[0];
  struct simrun_record rec;
  memset(&rec, 0, sizeof rec);
  rec.r.seed = seed;
  rec.r.index = index;
  rec.r.wall_s = (c->reaped_at > 0 ? c->reaped_at : st_now()) - c->start;
  rec.r.cpu_s = c->cpu_s;
  rec.r.exit_status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : -1;
  char *signature = NULL;
  bool has_first = o.first_line || plan->quiet_runtime;

  if (!c->killed && WIFEXITED(ws) && WEXITSTATUS(ws) == ST_RUNTIME_EXIT_USAGE && o.usage && !o.result) {
    cleanup();
    st_die(ST_EXIT_USAGE, "the runtime of '%s' refused the options: %s\n(DETSIM_OPTIONS=%s)", prog, o.usage,
           plan->run_options);
  }
  if (c->killed && !o.result) {
    /* Without a first line the run may just not have started in time (a
     * loaded machine): that is only a harness error when nothing says the
     * program is a simulation build. */
    if (!has_first && !plan->known_simulation)
      harness(cleanup, prog, seed,
              "printed no 'detsim: seed=' first line before it was killed at the timeout: it is not a simulation "
              "build (build it with detsim-cc)",
              text);
    rec.r.cls = ST_CLASS_inconclusive;
    signature = st_xstrdup("inconclusive reason=timeout");
  } else if (o.result) {
    if (o.seed != seed) {
      char *what = st_xasprintf("ended with a result line for seed %llu, not for the seed it was given",
                                (unsigned long long)o.seed);
      harness(cleanup, prog, seed, what, text);
    }
    rec.r.cls = o.cls;
    rec.r.events = o.events;
    rec.r.history = o.history;
    rec.r.sim_us = o.sim_us;
    rec.r.has_history = true;
    rec.checks = o.checks;
    rec.nchecks = o.nchecks;
    rec.faults = o.faults;
    rec.nfaults = o.nfaults;
    rec.points = o.points;
    rec.npoints = o.npoints;
    rec.trace = o.trace;
    rec.logs = o.logs;
    if (c->killed && o.detail && strstr(o.detail, "reason=signal")) {
      /* It ended for the SIGTERM of the timeout: say so. */
      const char *sig = strstr(o.detail, "signal=");
      signature = st_xasprintf("%s reason=timeout %.*s", st_class_name(o.cls), sig ? (int)strcspn(sig, " ") : 0,
                               sig ? sig : "");
    } else if (o.cls != ST_CLASS_pass) {
      signature = st_outcome_signature(&o);
    }
  } else if (!has_first) {
    char *what = st_xasprintf("printed no 'detsim: seed=' first line (exit status %d): it is not a simulation "
                              "build (build it with detsim-cc)",
                              rec.r.exit_status);
    harness(cleanup, prog, seed, what, text);
  } else if (WIFSIGNALED(ws)) {
    rec.r.cls = ST_CLASS_inconclusive;
    const char *abbrev = sigabbrev_np(WTERMSIG(ws));
    signature = st_xasprintf("inconclusive reason=killed signal=SIG%s", abbrev ? abbrev : "?");
  } else {
    char *what = st_xasprintf("exited with status %d without a result line (the runtime's last line is "
                              "missing: did the program exec another program or call the exit system call "
                              "directly?)",
                              rec.r.exit_status);
    harness(cleanup, prog, seed, what, text);
  }
  char *tail = NULL, *own = NULL;
  if (rec.r.cls != ST_CLASS_pass) {
    /* The coverage point lines (one per point) would fill the tail: the
     * report has them in WORKLOAD COVERAGE. */
    char *no_points = without_point_lines(text);
    tail = st_text_tail(no_points, SIMRUN_STDERR_TAIL_LINES);
    free(no_points);
    own = st_own_lines(text, ST_OWN_LINES);
  }
  rec.signature = signature;
  rec.tail = tail;
  rec.own = own;
  simrun_record_done(&rec, info);
  free(tail);
  free(own);
  free(signature);
  st_outcome_free(&o);
  free(text);
}
