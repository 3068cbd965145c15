/* simrun: sweep seeds over a simulation build and report (see simrun.h for
 * the parts and `simrun --help` for the contract).
 *
 * main is the flow: arguments; outputs opened early (a bad path is a usage
 * error before anything runs); for --merge, read the files; otherwise the
 * preflight, the options every run gets, the sweep; then the report and
 * the files; the exit status.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "simrun.h"
#include "st_options.h"
#include "st_scenario.h"
#include "st_world.h"
#include "st_classes.h"
#include "st_limits.h"

static struct {
  bool jsonl;
} out;

void simrun_record_done(const struct simrun_record *rec, const struct simrun_sweep_info *info) {
  struct simrun_record copy = *rec;
  copy.r.sig = simrun_stats_add(rec);
  if (!info->merged_files && rec->r.cls != ST_CLASS_pass)
    simrun_prune_note(rec->signature ? rec->signature : st_class_name(rec->r.cls), rec->r.index, rec->trace, rec->logs);
  if (out.jsonl) simrun_jsonl_write(&copy, info);
}

/* --trace-dir, --coverage: made when missing, with its parents (mkdir -p). */
static void make_dir(const char *opt, const char *dir) {
  struct stat st;
  if (stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode)) st_die(ST_EXIT_USAGE, "%s '%s' is not a directory", opt, dir);
    return;
  }
  char *path = st_xstrdup(dir);
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p != '\0') continue;
    char c = *p;
    *p = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
      st_die(ST_EXIT_USAGE, "cannot create %s '%s': %s: %s", opt, dir, path, strerror(errno));
    *p = c;
    if (c == '\0') break;
  }
  free(path);
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) st_die(ST_EXIT_USAGE, "%s '%s' is not a directory", opt, dir);
}

/* A writable output path, checked before the sweep. */
static void check_writable(const char *opt, const char *path) {
  if (!path) return;
  FILE *f = fopen(path, "a");
  if (!f) st_die(ST_EXIT_USAGE, "cannot write %s file '%s': %s", opt, path, strerror(errno));
  fclose(f);
}

int main(int argc, char **argv) {
  st_prog = "simrun";
  struct simrun_args a;
  simrun_parse_args(argc, argv, &a);
  check_writable("--junit", a.junit);
  check_writable("--sarif", a.sarif);
  struct simrun_sweep_info info;
  memset(&info, 0, sizeof info);
  info.require_coverage = a.require_coverage;
  simrun_prune_init(a.keep);
  if (a.jsonl) {
    simrun_jsonl_open(a.jsonl);
    out.jsonl = true;
  }

  if (a.merge) {
    for (int i = 0; i < a.nmerge; i++)
      if (a.jsonl && !strcmp(a.merge_files[i], a.jsonl))
        st_die(ST_EXIT_USAGE, "--merge: '%s' is also the --jsonl output", a.jsonl);
    simrun_stats_init(1024);
    simrun_merge(a.merge_files, a.nmerge, &info);
  } else {
    struct st_seeds seeds;
    char err[512];
    static const uint64_t level_seeds[4] = { 0, 10, 100, 1000 };
    /* A scenario that sets its own level is swept at that level (its seed
     * count, its report) unless --level says otherwise. */
    if (!a.level_given && st_is_simworld(a.argv[0]) && a.argv[1]) {
      static struct st_scenario sc;
      if (st_scenario_load(a.argv[1], &sc, err, sizeof err) == 0 && sc.level >= 1 && sc.level <= 3) a.level = sc.level;
    }
    const char *spec = a.seeds_spec;
    char deflt[32];
    if (!spec) {
      snprintf(deflt, sizeof deflt, "%llu", (unsigned long long)level_seeds[a.level]);
      spec = deflt;
    }
    if (st_seeds_parse(spec, level_seeds[a.level], &seeds, err, sizeof err) != 0) st_die(ST_EXIT_USAGE, "%s", err);
    uint64_t mine = a.shard_index < seeds.total
                        ? (seeds.total - a.shard_index + a.shard_count - 1) / a.shard_count
                        : 0;
    if (mine > SIMRUN_SEEDS_MAX)
      st_die(ST_EXIT_USAGE, "%llu seeds for one invocation: more than %u (limit SIMRUN_SEEDS_MAX); split the set with --shard I/N",
             (unsigned long long)mine, SIMRUN_SEEDS_MAX);
    if (a.trace_dir) make_dir("--trace-dir", a.trace_dir);
    if (a.coverage_dir) make_dir("--coverage", a.coverage_dir);
    bool known_simulation = simrun_preflight(a.argv);
    info.level_passed = false;
    struct st_buf run_opt = { 0 };
    st_buf_puts(&run_opt, a.options);
    if (a.level > 1 && !st_options_have(a.options, "level")) {
      /* simworld's nodes take level=N (a scenario's own level comes first). */
      info.level_passed = st_is_simworld(a.argv[0]) || simrun_runtime_has_option(a.argv, "level");
      if (info.level_passed) st_buf_printf(&run_opt, "%slevel=%d", run_opt.len ? ":" : "", a.level);
    }
    info.argv = a.argv;
    info.options = a.options;
    info.repro_options = run_opt.s;
    info.level = a.level;
    info.seeds_label = seeds.label;
    info.seeds_total = seeds.total;
    info.shard_index = a.shard_index;
    info.shard_count = a.shard_count;
    info.jobs = a.jobs;
    struct simrun_plan plan = {
      .a = &a,
      .seeds = &seeds,
      .run_options = run_opt.s ? run_opt.s : "",
      .pin = !st_options_have(a.options, "cpu") && !st_options_have(a.options, "pin_cpu"),
      .quiet_runtime = st_options_true(a.options, "quiet"),
      .known_simulation = known_simulation,
    };
    simrun_stats_init(mine);
    info.interrupted = !simrun_sweep(&plan, &info);
    if (a.coverage_dir) {
      uint64_t runs;
      simrun_stats_results(&runs);
      info.source_coverage = simrun_source_coverage(a.coverage_dir, a.argv, runs);
    }
  }
  simrun_jsonl_close();
  simrun_stats_sort();
  if (a.junit) simrun_junit_write(a.junit, &info);
  if (a.sarif) simrun_sarif_write(a.sarif, &info);
  simrun_report(stdout, &info, a.quiet);
  if (fflush(stdout) != 0) st_die(ST_EXIT_HARNESS, "cannot write the report: %s", strerror(errno));
  return simrun_exit_status(&info);
}
