/* --repeat K: K separate processes of one seed, each checked against the
 * expected outcome (from a result line or a trace file), or without one
 * against the first run.  The verdict is the last line on stdout:
 *
 *   simreplay: seed 24: deadlock history=5945c3497f90e1d7 events=19: replays exactly (5 of 5)
 *   simreplay: seed 7: diverged: replays 1 of 5 (expected pass history=... events=22, from run 1)
 *
 * On a divergence the first event that differs is located from the traces:
 * the trace file given (the expected side) or a run that took the expected
 * history, against the first run that did not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simreplay.h"
#include "st_classes.h"

/* The expected output digest, when known: what the program wrote is part
 * of what a replay must repeat (its writes are events of the history too). */
static bool want_output;
static uint64_t wanted_output;

static bool matches(const struct sr_run *r, int cls, uint64_t history, uint64_t events) {
  if (want_output && r->have_output && r->output != wanted_output) return false;
  return r->result && r->history == history && r->events == events && (cls < 0 || r->cls == cls);
}

static void expected_text(char *buf, size_t n, int cls, uint64_t history, uint64_t events) {
  snprintf(buf, n, "%s%shistory=%016llx events=%llu", cls >= 0 ? st_class_name(cls) : "", cls >= 0 ? " " : "",
           (unsigned long long)history, (unsigned long long)events);
}

/* The runtime's warnings (an unsimulated call, ...) usually name the
 * cause of a divergence: print each distinct one once. */
static void print_warnings(const struct sr_run *runs, int n) {
  struct st_buf seen = { 0 };
  st_buf_puts(&seen, "\n");
  for (int k = 0; k < n; k++) {
    for (const char *l = runs[k].stderr_text; l && *l;) {
      const char *nl = strchr(l, '\n');
      size_t len = nl ? (size_t)(nl - l) : strlen(l);
      if (!strncmp(l, "detsim: warning: ", 17)) {
        char *line = st_xasprintf("\n%.*s\n", (int)len, l);
        if (!strstr(seen.s, line)) {
          if (seen.len == 1) printf("simreplay: the runs warned (a likely cause):\n");
          printf("    %.*s\n", (int)len, l);
          st_buf_puts(&seen, line + 1);
        }
        free(line);
      }
      if (!nl) break;
      l = nl + 1;
    }
  }
  st_buf_free(&seen);
}

int sr_replay(const struct sr_args *a, struct sr_target *t) {
  sr_check_program(t->argv[0]);
  sr_symbolize_program(t->argv[0]);
  int k_total = a->repeat ? a->repeat : (t->expect ? 1 : 2);
  struct sr_run *runs = st_xcalloc((size_t)k_total, sizeof *runs);
  struct st_buf cmd = { 0 };
  st_shell_join(&cmd, t->argv);
  bool expect = t->expect;
  int cls = t->cls;
  uint64_t history = t->history, events = t->events;
  const char *from = t->expect_from;
  want_output = t->expect && t->have_output;
  wanted_output = t->output;
  char exp[160];
  if (!a->quiet) {
    printf("simreplay: seed %llu of %s%s%s\n", (unsigned long long)t->seed, cmd.s, t->options[0] ? " with DETSIM_OPTIONS=" : "",
           t->options);
    if (expect) {
      expected_text(exp, sizeof exp, cls, history, events);
      printf("simreplay: expecting %s (from %s)\n", exp, from);
    } else {
      printf("simreplay: no expected outcome given: run 1 is the reference\n");
    }
    fflush(stdout);
  }
  int same = 0, first_good = -1, first_bad = -1;
  for (int k = 0; k < k_total; k++) {
    struct sr_run *r = &runs[k];
    /* Runs that replay write no trace; run 1 does for --trace, and when it
     * is the reference. */
    bool trace_always = k == 0 && (a->trace || !expect);
    sr_run(t->argv, t->seed, t->options, expect ? events : 0, a->timeout_s, true,
           expect && !trace_always ? &history : NULL, r);
    if (!expect && k == 0 && r->result) {
      expect = true;
      cls = r->cls;
      history = r->history;
      events = r->events;
      want_output = r->have_output;
      wanted_output = r->output;
      from = "run 1";
    }
    bool ok = expect && matches(r, cls, history, events);
    if (ok) {
      same++;
      if (first_good < 0) first_good = k;
    } else if (first_bad < 0) {
      first_bad = k;
    }
    if (!a->quiet) {
      printf("simreplay: run %d: %s%s\n", k + 1, sr_run_text(r), ok ? "" : "  <- differs");
      fflush(stdout);
    }
  }
  if (a->trace) {
    if (runs[0].have_trace) sr_print_trace(&runs[0].trace);
    else printf("simreplay: no trace of run 1: %s\n", runs[0].trace_err);
  }
  int status;
  if (same == k_total) {
    printf("simreplay: seed %llu: %s history=%016llx events=%llu: replays exactly (%d of %d)\n",
           (unsigned long long)t->seed, st_class_name(runs[0].cls), (unsigned long long)history,
           (unsigned long long)events, same, k_total);
    status = ST_EXIT_OK; /* the verdict is on replaying, whatever the class */
  } else {
    expected_text(exp, sizeof exp, cls, history, events);
    if (expect)
      printf("simreplay: seed %llu: diverged: replays %d of %d (expected %s, from %s)\n", (unsigned long long)t->seed,
             same, k_total, exp, from);
    else
      printf("simreplay: seed %llu: diverged: run 1 gave no result, so nothing replays (0 of %d)\n",
             (unsigned long long)t->seed, k_total);
    /* The expected side's trace: the file given, or a run that matched; else
     * two runs that differ from each other. */
    const struct st_trace *ta = NULL, *tb = NULL;
    char name_a[64], name_b[64];
    struct sr_run again = { 0 };
    if (t->trace) {
      ta = t->trace;
      snprintf(name_a, sizeof name_a, "trace file");
    } else if (first_good >= 0 && runs[first_good].have_trace) {
      ta = &runs[first_good].trace;
      snprintf(name_a, sizeof name_a, "run %d", first_good + 1);
    } else if (first_good >= 0) {
      /* The runs that replayed wrote no trace: one more, traced, for the
       * expected side (it may diverge in turn; then the runs are compared
       * with each other below). */
      sr_run(t->argv, t->seed, t->options, events, a->timeout_s, true, NULL, &again);
      if (again.have_trace && matches(&again, cls, history, events)) {
        ta = &again.trace;
        snprintf(name_a, sizeof name_a, "run %d", k_total + 1);
        if (!a->quiet) printf("simreplay: run %d (traced, for the expected side): %s\n", k_total + 1, sr_run_text(&again));
      }
    }
    if (first_bad >= 0 && runs[first_bad].have_trace) {
      tb = &runs[first_bad].trace;
      snprintf(name_b, sizeof name_b, "run %d", first_bad + 1);
    }
    if (!ta && tb) {
      /* No trace of the expected history: compare the differing runs. */
      for (int k = 0; k < k_total; k++)
        if (k != first_bad && runs[k].have_trace &&
            !(runs[k].history == runs[first_bad].history && runs[k].events == runs[first_bad].events)) {
          ta = &runs[k].trace;
          snprintf(name_a, sizeof name_a, "run %d", k + 1);
          break;
        }
      if (!ta)
        printf("simreplay: no run took the expected history, and the runs agree with each other: the program "
               "replays, but not as %s says (another binary, other options, another environment?)\n",
               from ? from : "expected");
    }
    if (ta && tb) sr_print_divergence(ta, name_a, tb, name_b);
    else if (!tb && first_bad >= 0)
      printf("simreplay: run %d left no trace to compare: %s\n", first_bad + 1, runs[first_bad].trace_err);
    print_warnings(runs, k_total);
    sr_run_free(&again);
    status = st_class_status(ST_CLASS_diverged);
  }
  for (int k = 0; k < k_total; k++) sr_run_free(&runs[k]);
  free(runs);
  st_buf_free(&cmd);
  return status;
}
