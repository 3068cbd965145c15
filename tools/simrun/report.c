/* The SIMULATION REPORT, on stdout, after the sweep (or the merge):
 *
 *   SIMULATION REPORT
 *     result:             PASSED | FAILED | INTERRUPTED
 *     program, options, level, seeds (and shard), wall time, simulated
 *     time, time compression, classes, invariants checked, faults and
 *     lifecycle events exercised
 *   WORKLOAD COVERAGE: every coverage point (DETSIM_SOMETIMES, REACHABLE,
 *     UNREACHABLE), reached or not:
 *       [x] NAME — N occurrences (K of M seeds)      reached
 *       [ ] NAME — 0 occurrences (not exercised)     SOMETIMES/REACHABLE never
 *       [-] NAME — 0 occurrences (unreachable, never reached)
 *       [!] NAME — N occurrences (K of M seeds; unreachable: correctness)
 *   FAILURES: a table of class, count, first seeds, signature; then per
 *     signature its reproduction command and simreplay command
 *   FAILURES BY FAULT (worlds with faults): per signature, the fault kinds
 *     its failing seeds had, most over-represented against the passing
 *     seeds first, so the kind a failure needs comes first:
 *       crash   5 of 6 failing seeds, 42 of 194 passing
 *   FIRST FAILURE: the first failing seed's own first lines on stderr (the
 *     program's, or in a world the failing node's, not detsim's), then the
 *     last lines of its stderr
 *
 * -q prints the result line only (and the failure table when failing).
 * Every number is from the runs' own lines; nothing is estimated.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simrun.h"
#include "st_classes.h"
#include "st_limits.h"

static const char *const level_names[] = { "?", "sunny", "stormy", "radioactive" };

void simrun_repro_env(struct st_buf *b, const struct simrun_sweep_info *info, uint64_t seed) {
  st_buf_printf(b, "DETSIM_SEED=%llu ", (unsigned long long)seed);
  if (info->repro_options && info->repro_options[0]) {
    char *kv = st_xasprintf("DETSIM_OPTIONS=%s", info->repro_options);
    st_shell_quote(b, kv);
    st_buf_puts(b, " ");
    free(kv);
  }
  st_shell_join(b, info->argv);
}

void simrun_repro_replay(struct st_buf *b, const struct simrun_sweep_info *info, uint64_t seed) {
  st_buf_printf(b, "simreplay --seed %llu ", (unsigned long long)seed);
  if (info->repro_options && info->repro_options[0]) {
    st_buf_puts(b, "--options ");
    st_shell_quote(b, info->repro_options);
    st_buf_puts(b, " ");
  }
  st_buf_puts(b, "-- ");
  st_shell_join(b, info->argv);
}

static void seconds(FILE *out, double s) {
  if (s < 10) fprintf(out, "%.3f s", s);
  else fprintf(out, "%.1f s", s);
}

bool simrun_coverage_failed(const struct simrun_sweep_info *info) {
  return info->require_coverage && simrun_stats_points_missed() > 0;
}

const char *simrun_result_word(const struct simrun_sweep_info *info) {
  if (info->interrupted) return "INTERRUPTED";
  if (simrun_stats_failed() || simrun_coverage_failed(info)) return "FAILED";
  return "PASSED";
}

int simrun_exit_status(const struct simrun_sweep_info *info) {
  if (info->interrupted) return SIMRUN_EXIT_INTERRUPTED;
  if (simrun_stats_failed()) return ST_EXIT_FINDINGS;
  if (simrun_coverage_failed(info)) return SIMRUN_EXIT_COVERAGE;
  return ST_EXIT_OK;
}

static void coverage_section(FILE *out, uint64_t seeds) {
  int n = simrun_stats_npoints();
  if (n == 0) {
    fprintf(out, "\nWORKLOAD COVERAGE: no points (no DETSIM_SOMETIMES, DETSIM_REACHABLE or DETSIM_UNREACHABLE in the program)\n");
    return;
  }
  int exercised = 0, goals = 0;
  for (int i = 0; i < n; i++) {
    int kind;
    const char *name;
    uint64_t hits, evals, runs_hit, known;
    simrun_stats_point(i, &kind, &name, &hits, &evals, &runs_hit, &known);
    if (kind == ST_POINT_UNREACHABLE) continue;
    goals++;
    exercised += hits > 0;
  }
  fprintf(out, "\nWORKLOAD COVERAGE: %d of %d point%s exercised\n", exercised, goals, goals == 1 ? "" : "s");
  for (int i = 0; i < n; i++) {
    int kind;
    const char *name;
    uint64_t hits, evals, runs_hit, known;
    simrun_stats_point(i, &kind, &name, &hits, &evals, &runs_hit, &known);
    bool unreachable = kind == ST_POINT_UNREACHABLE;
    const char *mark = unreachable ? (hits ? "[!]" : "[-]") : hits ? "[x]" : "[ ]";
    fprintf(out, "  %s %s \u2014 %llu occurrence%s (", mark, name, (unsigned long long)hits, hits == 1 ? "" : "s");
    if (hits) fprintf(out, "%llu of %llu seeds", (unsigned long long)runs_hit, (unsigned long long)seeds);
    if (unreachable) fprintf(out, hits ? "; unreachable: correctness)\n" : "unreachable, never reached)\n");
    else if (hits) fprintf(out, ")\n");
    else if (kind == ST_POINT_SOMETIMES && evals)
      fprintf(out, "not exercised; evaluated %llu times, never true)\n", (unsigned long long)evals);
    else fprintf(out, "not exercised)\n");
  }
}

static void failure_table(FILE *out, const struct simrun_sweep_info *info, bool details) {
  int nsigs = simrun_stats_nsigs();
  uint64_t failed = simrun_stats_failed();
  fprintf(out, "\nFAILURES: %llu seed%s, %d signature%s\n", (unsigned long long)failed, failed == 1 ? "" : "s", nsigs,
          nsigs == 1 ? "" : "s");
  fprintf(out, "  %-3s %-13s %7s  %-28s %s\n", "#", "class", "count", "seeds", "signature");
  for (int i = 0; i < nsigs; i++) {
    uint64_t seeds[SIMRUN_REPORT_SEEDS_SHOWN];
    int n = simrun_stats_sig_seeds(i, seeds, SIMRUN_REPORT_SEEDS_SHOWN);
    struct st_buf list = { 0 };
    for (int k = 0; k < n; k++) st_buf_printf(&list, "%s%llu", k ? "," : "", (unsigned long long)seeds[k]);
    if (simrun_stats_sig_count(i) > (uint64_t)n) st_buf_puts(&list, ",...");
    fprintf(out, "  %-3d %-13s %7llu  %-28s %s\n", i + 1, st_class_name(simrun_stats_sig_class(i)),
            (unsigned long long)simrun_stats_sig_count(i), list.s ? list.s : "", simrun_stats_sig_text(i));
    st_buf_free(&list);
  }
  if (!details) return;
  for (int i = 0; i < nsigs; i++) {
    uint64_t seed = simrun_stats_sig_first_seed(i);
    struct st_buf env = { 0 }, rep = { 0 };
    simrun_repro_env(&env, info, seed);
    simrun_repro_replay(&rep, info, seed);
    fprintf(out, "\n  %d. %s (seed %llu)\n", i + 1, simrun_stats_sig_text(i), (unsigned long long)seed);
    fprintf(out, "     reproduce: %s\n", env.s);
    fprintf(out, "     replay:    %s\n", rep.s);
    const char *trace, *logs;
    if (!info->merged_files && simrun_prune_kept(simrun_stats_sig_first_index(i), &trace, &logs)) {
      if (trace) fprintf(out, "     trace:     %s\n", trace);
      if (logs) fprintf(out, "     logs:      %s\n", logs);
    }
    st_buf_free(&env);
    st_buf_free(&rep);
  }
}

/* How much more often the failing seeds of `sig` had kind `k` than the
 * passing seeds did: the difference of the two shares, scaled by both
 * counts so that it is exact (f/F - p/P, times F*P; counts are seed
 * indexes, below 2^31, so the products fit). */
static int64_t over_representation(int sig, int k) {
  int64_t f = (int64_t)simrun_stats_sig_fault_runs(sig, k), F = (int64_t)simrun_stats_sig_count(sig);
  int64_t p = (int64_t)simrun_stats_fault_pass_runs(k), P = (int64_t)simrun_stats_class_count(ST_CLASS_pass);
  return P ? f * P - p * F : f;
}

static int by_fault_sig; /* the signature qsort's comparison ranks kinds for */

static int cmp_kinds(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  int64_t ox = over_representation(by_fault_sig, x), oy = over_representation(by_fault_sig, y);
  if (ox != oy) return ox > oy ? -1 : 1;
  uint64_t fx = simrun_stats_sig_fault_runs(by_fault_sig, x), fy = simrun_stats_sig_fault_runs(by_fault_sig, y);
  if (fx != fy) return fx > fy ? -1 : 1;
  /* Kinds are numbered in the order seeds finished: the name decides. */
  const char *nx, *ny;
  uint64_t t, r;
  simrun_stats_fault(x, &nx, &t, &r);
  simrun_stats_fault(y, &ny, &t, &r);
  return strcmp(nx, ny);
}

/* Which fault a failure needs: a kind that every failing seed of a
 * signature had and few passing seeds did is its likely cause. */
static void fault_section(FILE *out) {
  int nfaults = simrun_stats_nfaults();
  if (nfaults == 0) return;
  uint64_t passing = simrun_stats_class_count(ST_CLASS_pass);
  fprintf(out, "\nFAILURES BY FAULT: the fault kinds each signature's failing seeds had, most over-represented "
               "against the %llu passing seed%s first\n",
          (unsigned long long)passing, passing == 1 ? "" : "s");
  int nsigs = simrun_stats_nsigs();
  for (int i = 0; i < nsigs; i++) {
    uint64_t count = simrun_stats_sig_count(i);
    fprintf(out, "  %d. %s (%llu failing seed%s)\n", i + 1, simrun_stats_sig_text(i), (unsigned long long)count,
            count == 1 ? "" : "s");
    int kinds[SIMRUN_FAULT_KINDS_MAX], n = 0;
    for (int k = 0; k < nfaults; k++)
      if (simrun_stats_sig_fault_runs(i, k)) kinds[n++] = k;
    if (n == 0) {
      fprintf(out, "     no faults: its failing seeds had none (scheduling alone fails it)\n");
      continue;
    }
    by_fault_sig = i;
    qsort(kinds, (size_t)n, sizeof kinds[0], cmp_kinds);
    /* The kinds more common among its failing seeds than among the
     * passing ones, one line each; the others by name only. */
    int shown = 0;
    while (shown < n && shown < SIMRUN_REPORT_FAULT_KINDS_SHOWN && over_representation(i, kinds[shown]) > 0) {
      const char *name;
      uint64_t total, runs;
      simrun_stats_fault(kinds[shown], &name, &total, &runs);
      fprintf(out, "     %-14s %llu of %llu failing seeds, %llu of %llu passing\n", name,
              (unsigned long long)simrun_stats_sig_fault_runs(i, kinds[shown]), (unsigned long long)count,
              (unsigned long long)simrun_stats_fault_pass_runs(kinds[shown]), (unsigned long long)passing);
      shown++;
    }
    if (shown == 0) fprintf(out, "     no kind is more common among them than among the passing seeds\n");
    if (n > shown) {
      fprintf(out, "     also had:      ");
      for (int j = shown; j < n; j++) {
        const char *name;
        uint64_t total, runs;
        simrun_stats_fault(kinds[j], &name, &total, &runs);
        fprintf(out, "%s%s", j > shown ? " " : "", name);
      }
      fprintf(out, "\n");
    }
  }
}

/* What happens to a node's process (a crash, a restart, a SIGTERM stop) is
 * a lifecycle event; the other kinds are faults (runtime/fault_kinds.inc). */
static bool is_lifecycle(const char *name) {
#define DETSIM_FAULT(NAME, kind, lifecycle, desc) \
  if (lifecycle && !strcmp(name, #kind)) return true;
#include "../../runtime/fault_kinds.inc"
#undef DETSIM_FAULT
  return false;
}

static void event_section(FILE *out, const char *title, bool lifecycle) {
  int n = 0, nfaults = simrun_stats_nfaults();
  for (int i = 0; i < nfaults; i++) {
    const char *name;
    uint64_t total, runs;
    simrun_stats_fault(i, &name, &total, &runs);
    n += is_lifecycle(name) == lifecycle;
  }
  if (n == 0) {
    fprintf(out, "  %-19s none\n", title);
    return;
  }
  fprintf(out, "  %-19s %d kinds\n", title, n);
  for (int i = 0; i < nfaults; i++) {
    const char *name;
    uint64_t total, runs;
    simrun_stats_fault(i, &name, &total, &runs);
    if (is_lifecycle(name) != lifecycle) continue;
    fprintf(out, "    %-32s %12llu times in %llu runs\n", name, (unsigned long long)total, (unsigned long long)runs);
  }
}

void simrun_report(FILE *out, const struct simrun_sweep_info *info, bool quiet) {
  uint64_t n;
  simrun_stats_results(&n);
  uint64_t failed = simrun_stats_failed();
  const char *result = simrun_result_word(info);
  int missed = simrun_stats_points_missed();
  if (quiet) {
    fprintf(out, "simrun: %s: %llu of %llu seeds failed", result, (unsigned long long)failed, (unsigned long long)n);
    if (missed) fprintf(out, "; %d coverage point%s not exercised", missed, missed == 1 ? "" : "s");
    fprintf(out, "\n");
    if (failed) failure_table(out, info, false);
    return;
  }
  fprintf(out, "SIMULATION REPORT\n");
  fprintf(out, "  result:             %s", result);
  if (simrun_coverage_failed(info))
    fprintf(out, " (--require-coverage: %d point%s not exercised)", missed, missed == 1 ? "" : "s");
  fprintf(out, "\n");
  struct st_buf cmd = { 0 };
  st_shell_join(&cmd, info->argv);
  fprintf(out, "  program:            %s\n", cmd.s);
  st_buf_free(&cmd);
  fprintf(out, "  options:            %s\n", info->options && info->options[0] ? info->options : "(none)");
  fprintf(out, "  level:              %d (%s)%s\n", info->level, level_names[info->level],
          info->level_passed || info->level == 1 ? "" : "; not passed to the runtime, which has no 'level' option");
  fprintf(out, "  seeds:              %llu tested, %llu failed (seed set %s", (unsigned long long)n,
          (unsigned long long)failed, info->seeds_label);
  if (info->shard_count > 1)
    fprintf(out, "; shard %llu/%llu of its %llu seeds", (unsigned long long)info->shard_index,
            (unsigned long long)info->shard_count, (unsigned long long)info->seeds_total);
  if (info->merged_files) fprintf(out, "; merged from %d file%s", info->merged_files, info->merged_files == 1 ? "" : "s");
  fprintf(out, ")\n");
  if (info->merged_files && n != info->seeds_total)
    fprintf(out, "  missing:            %llu seeds of the set have no record (a shard not merged?)\n",
            (unsigned long long)(info->seeds_total - n));
  fprintf(out, "  wall time:          ");
  seconds(out, info->wall_s);
  if (info->wall_is_sum) fprintf(out, " (sum over the runs)\n");
  else fprintf(out, " (-j %d)\n", info->jobs);
  uint64_t sim_us = simrun_stats_sim_us();
  fprintf(out, "  simulated time:     %llu.%06llu s (sum over the runs)\n", (unsigned long long)(sim_us / 1000000),
          (unsigned long long)(sim_us % 1000000));
  /* Over the runs' CPU time, not the wall time: the same sweep at -j 1 or
   * -j 8 compresses time alike. */
  double cpu = simrun_stats_cpu_s();
  fprintf(out, "  CPU time:           ");
  seconds(out, cpu);
  fprintf(out, " (sum over the runs)\n");
  fprintf(out, "  time compression:   %.3gx (simulated / CPU time)\n", (double)sim_us / 1e6 / (cpu > 0 ? cpu : 1e-9));
  fprintf(out, "  classes:           ");
  for (int c = 0; c < ST_CLASS_COUNT; c++)
    if (simrun_stats_class_count(c))
      fprintf(out, " %s %llu", st_class_name(c), (unsigned long long)simrun_stats_class_count(c));
  fprintf(out, "%s\n", n ? "" : " (no seeds ran)");
  int nchecks = simrun_stats_nchecks();
  if (nchecks == 0) {
    fprintf(out, "  invariants checked: none (no DETSIM_CHECK ran)\n");
  } else {
    fprintf(out, "  invariants checked: %d\n", nchecks);
    for (int i = 0; i < nchecks; i++) {
      const char *name;
      uint64_t total, runs;
      simrun_stats_check(i, &name, &total, &runs);
      fprintf(out, "    %-32s %12llu checks in %llu runs\n", name, (unsigned long long)total, (unsigned long long)runs);
    }
  }
  /* Faults and lifecycle events come with levels 2 and 3 in worlds of
   * several nodes. */
  int nfaults = simrun_stats_nfaults();
  if (nfaults > 0) {
    event_section(out, "faults exercised:", false);
    event_section(out, "lifecycle events:", true);
  } else if (info->level == 1) {
    fprintf(out, "  faults exercised:   none (level 1: scheduling only)\n");
    fprintf(out, "  lifecycle events:   none (level 1: scheduling only)\n");
  } else {
    fprintf(out, "  faults exercised:   none (level %d: faults are drawn only in worlds of several nodes, and none fell inside these runs)\n",
            info->level);
    fprintf(out, "  lifecycle events:   none\n");
  }
  if (failed && !info->merged_files) {
    int keep = simrun_prune_keep();
    uint64_t pruned = simrun_prune_count();
    if (keep < 0)
      fprintf(out, "  kept on disk:       every failing seed's trace and world logs (--keep all)\n");
    else
      fprintf(out, "  kept on disk:       the trace and world logs of the lowest %d failing seed%s of each signature "
                   "(--keep); %llu seed%s' deleted\n",
              keep, keep == 1 ? "" : "s", (unsigned long long)pruned, pruned == 1 ? "" : "s");
  }
  coverage_section(out, n);
  if (info->source_coverage) fprintf(out, "\n%s", info->source_coverage);
  if (!failed) return;
  failure_table(out, info, true);
  fault_section(out);
  const struct simrun_result *first = simrun_stats_first_failure();
  const char *tail = simrun_stats_first_tail();
  const char *own = simrun_stats_first_own();
  fprintf(out, "\nFIRST FAILURE: seed %llu (%s)\n", (unsigned long long)first->seed, st_class_name(first->cls));
  /* The program's own messages first: the trace tail below would hide a
   * client's "connection refused". */
  if (own && *own) {
    fprintf(out, "  its own first lines on stderr (not detsim's):\n");
    for (const char *l = own; *l;) {
      const char *nl = strchr(l, '\n');
      fprintf(out, "  %.*s\n", (int)(nl ? nl - l : (long)strlen(l)), l);
      if (!nl) break;
      l = nl + 1;
    }
  } else {
    fprintf(out, "  its own lines on stderr: none (only detsim's)\n");
  }
  fprintf(out, "  the last lines of its stderr:\n");
  if (!tail || !*tail) fprintf(out, "  (empty)\n");
  for (const char *l = tail; l && *l;) {
    const char *nl = strchr(l, '\n');
    fprintf(out, "  %.*s\n", (int)(nl ? nl - l : (long)strlen(l)), l);
    if (!nl) break;
    l = nl + 1;
  }
}
