/* simrun's command line: parsing, checking, and --help.  Every problem is
 * a message naming it and exit status 2, before anything runs. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simrun.h"
#include "st_limits.h"
#include "st_world.h"

static const char help_text[] =
"usage: simrun [options] -- PROGRAM [ARGS...]\n"
"       simrun [options] PROGRAM [options] [-- ARGS...]\n"
"       simrun [options] SCENARIO-FILE [options]\n"
"       simrun --merge FILE.jsonl... [--jsonl OUT] [--junit OUT] [--sarif OUT]\n"
"\n"
"Runs PROGRAM, a simulation build (made with detsim-cc), once per seed, each\n"
"seed in its own process, and prints a SIMULATION REPORT on stdout.\n"
"\n"
"options:\n"
"  --seeds SPEC      the seeds (default: 10, 100 or 1000 by --level):\n"
"                      N          seeds 1..N\n"
"                      A-B        seeds A..B (A-A: the single seed A)\n"
"                      a,b,A-B    a list of seeds and ranges, none twice\n"
"                      HASH[:N]   a 40-hex git commit hash: N seeds (default the\n"
"                                 level's count) from the u64 of its first 16\n"
"                                 hex digits, so each commit has fixed seeds\n"
"  --level 1|2|3     sunny, stormy, radioactive (default 1, or a scenario's own\n"
"                    `level`).  Passed to the run as DETSIM_OPTIONS level=N only\n"
"                    when the program's runtime lists a `level` option;\n"
"                    otherwise recorded in the report\n"
"  -j N, --jobs N    seeds run at once (default: the CPUs simrun may use)\n"
"  --timeout S       wall-clock seconds per seed (default 600; 0: none); a seed\n"
"                    past it is killed with its process group and classed\n"
"                    `inconclusive` (reason=timeout)\n"
"  --options STR     DETSIM_OPTIONS for every run (key=value:key=value)\n"
"  --trace-dir DIR   trace files go to DIR/detsim-<seed>.trace (the runtime's\n"
"                    default: the working directory); DIR is made if missing\n"
"  --coverage DIR    source coverage of the sweep: each seed writes its profile\n"
"                    to DIR (LLVM_PROFILE_FILE, continuous mode), then simrun\n"
"                    merges them (llvm-profdata) into DIR/sweep.profdata and\n"
"                    reports lines, functions and regions covered (llvm-cov:\n"
"                    DIR/report.txt, DIR/html/index.html).  Build PROGRAM (a\n"
"                    world's nodes) with detsim-cc -fprofile-instr-generate\n"
"                    -fcoverage-mapping\n"
"  --keep N|all      failing seeds per signature (the lowest in the seed set)\n"
"                    whose trace and world log directory stay on disk\n"
"                    (default 3); the others' are deleted, so a sweep never\n"
"                    piles up thousands; the report names what is kept\n"
"  --jsonl FILE      one JSON object per seed, written as seeds finish:\n"
"                      {index, seed, class, exit_status, events, history,\n"
"                       sim_time_s, wall_s, cpu_s, signature,\n"
"                       checks:{name:count},\n"
"                       points:[{kind, name, hits, evals}],\n"
"                       trace, stderr_tail and stderr_own (failures: the\n"
"                       last lines, and its own first lines, not detsim's),\n"
"                       program, argv,\n"
"                       options, level}\n"
"                    (events/history are null for a seed that was killed)\n"
"  --junit FILE      JUnit XML: one testcase per seed, failures with the class\n"
"  --sarif FILE      SARIF 2.1.0: one result per failure signature\n"
"  --shard I/N       run only the seeds whose position in the seed set, modulo\n"
"                    N, is I (0 <= I < N): N invocations cover the set once\n"
"  --shard /N        the same, with I from the environment: SLURM array jobs\n"
"                    (SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN) or\n"
"                    Kubernetes indexed Jobs (JOB_COMPLETION_INDEX)\n"
"  --shard-from-env N   the same as --shard /N\n"
"  --merge FILE...   merge the --jsonl files of several shards into one report\n"
"                    (and --jsonl/--junit/--sarif outputs); every seed must\n"
"                    appear once.  Wall time is then the sum of the runs'\n"
"  --require-coverage   a DETSIM_SOMETIMES or DETSIM_REACHABLE point that no\n"
"                    seed reached fails the sweep (exit status 4); the report's\n"
"                    WORKLOAD COVERAGE lists every point, [ ] for those\n"
"  -q, --quiet       no progress line; the report is its summary only\n"
"  -h, --help        this text\n"
"\n"
"Each seed runs with DETSIM_SEED=<seed> and DETSIM_OPTIONS=<--options> plus\n"
"cpu=<a CPU of its own> (unless --options sets cpu or pin_cpu), stdin from\n"
"/dev/null, stdout and stderr through pipes keeping the first 64 KiB and the\n"
"last 256 KiB of stderr (limits ST_CAPTURE_HEAD_BYTES, ST_CAPTURE_TAIL_BYTES).\n"
"A crash, deadlock or hang of one seed never stops the sweep.\n"
"\n"
"Failures are grouped by signature: the class, the result line's fields\n"
"(check=, signal=, reason=, exit_status=...) and the function of the first\n"
"backtrace frame (for a deadlock: of every blocked thread).\n"
"\n"
"exit status:\n"
"  0    every seed passed\n"
"  1    some seed failed (any class but pass; see the report)\n"
"  4    --require-coverage: every seed passed, but a coverage point was\n"
"       never reached (the report's WORKLOAD COVERAGE marks it [ ])\n"
"  2    usage error: a bad option, seed spec, --merge file, or DETSIM_OPTIONS\n"
"       the runtime refused; nothing was judged and no report is printed\n"
"  3    harness error: PROGRAM cannot be executed or is not a simulation build\n"
"       (a run printed no 'detsim: seed=' first line, or ended without a\n"
"       result line); the sweep stops at once\n"
"  130  interrupted (SIGINT/SIGTERM): the report covers the seeds that ran\n";

static _Noreturn void usage(const char *fmt, const char *arg) {
  fprintf(stderr, "simrun: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(simrun --help for usage)\n");
  exit(ST_EXIT_USAGE);
}

static uint64_t parse_count(const char *opt, const char *v, uint64_t min, uint64_t max) {
  uint64_t x;
  if (!st_parse_u64(v, &x) || x < min || x > max) {
    fprintf(stderr, "simrun: bad value '%s' for %s (expected a whole number in %llu..%llu)\n(simrun --help for usage)\n",
            v, opt, (unsigned long long)min, (unsigned long long)max);
    exit(ST_EXIT_USAGE);
  }
  return x;
}

/* The shard index from the environment of an array job. */
static uint64_t shard_index_from_env(uint64_t count, const char **source) {
  const char *slurm = getenv("SLURM_ARRAY_TASK_ID");
  const char *k8s = getenv("JOB_COMPLETION_INDEX");
  uint64_t i, min = 0;
  if (slurm && *slurm) {
    if (!st_parse_u64(slurm, &i)) usage("SLURM_ARRAY_TASK_ID='%s' is not a whole number", slurm);
    const char *m = getenv("SLURM_ARRAY_TASK_MIN");
    if (m && *m && !st_parse_u64(m, &min)) usage("SLURM_ARRAY_TASK_MIN='%s' is not a whole number", m);
    if (i < min) usage("SLURM_ARRAY_TASK_ID='%s' is below SLURM_ARRAY_TASK_MIN", slurm);
    i -= min;
    *source = "SLURM_ARRAY_TASK_ID";
  } else if (k8s && *k8s) {
    if (!st_parse_u64(k8s, &i)) usage("JOB_COMPLETION_INDEX='%s' is not a whole number", k8s);
    *source = "JOB_COMPLETION_INDEX";
  } else {
    usage("%s: no shard index in the environment (neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set)",
          "--shard /N");
  }
  if (i >= count) {
    fprintf(stderr, "simrun: shard index %llu from %s is not below the shard count %llu\n", (unsigned long long)i,
            *source, (unsigned long long)count);
    exit(ST_EXIT_USAGE);
  }
  return i;
}

static void parse_shard(const char *v, struct simrun_args *a) {
  const char *slash = strchr(v, '/');
  if (!slash) usage("bad --shard '%s' (expected I/N, e.g. 0/4, or /N to take I from the environment)", v);
  a->shard_count = parse_count("--shard N", slash + 1, 1, 1u << 30);
  if (slash == v) {
    a->shard_index = shard_index_from_env(a->shard_count, &a->shard_source);
    return;
  }
  char idx[32];
  if ((size_t)(slash - v) >= sizeof idx) usage("bad --shard '%s' (I is not a whole number)", v);
  memcpy(idx, v, (size_t)(slash - v));
  idx[slash - v] = '\0';
  uint64_t i;
  if (!st_parse_u64(idx, &i)) usage("bad --shard '%s' (I is not a whole number)", v);
  if (i >= a->shard_count) usage("bad --shard '%s' (I must be below N: shards are numbered 0..N-1)", v);
  a->shard_index = i;
  a->shard_source = "--shard";
}

/* Matches "--name VALUE", "--name=VALUE" (and "-jN" for -j). */
static const char *value_of(int argc, char **argv, int *i, const char *name) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n)) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  if (arg[n] != '\0') {
    if (!strcmp(name, "-j")) return arg + n;
    return NULL;
  }
  if (*i + 1 >= argc) usage("option %s needs a value", name);
  return argv[++*i];
}

void simrun_parse_args(int argc, char **argv, struct simrun_args *a) {
  memset(a, 0, sizeof *a);
  a->level = 1;
  a->timeout_s = SIMRUN_TIMEOUT_S_DEFAULT;
  a->options = "";
  a->shard_count = 1;
  a->jobs = 0;
  a->keep = SIMRUN_KEEP_DEFAULT;
  char **files = st_xcalloc((size_t)argc + 1, sizeof *files);
  /* PROGRAM or SCENARIO may come before, between or after the options
   * (simrun kv.scenario --seeds 10); its arguments then follow a '--'. */
  const char *target = NULL;
  int i = 1;
  for (; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--")) {
      i++;
      break;
    }
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      fputs(help_text, stdout);
      exit(0);
    } else if ((v = value_of(argc, argv, &i, "--seeds"))) {
      a->seeds_spec = v;
    } else if ((v = value_of(argc, argv, &i, "--level"))) {
      a->level = (int)parse_count("--level", v, 1, 3);
      a->level_given = true;
    } else if ((v = value_of(argc, argv, &i, "-j")) || (v = value_of(argc, argv, &i, "--jobs"))) {
      a->jobs = (int)parse_count("-j", v, 1, SIMRUN_JOBS_MAX);
    } else if ((v = value_of(argc, argv, &i, "--timeout"))) {
      char *end;
      double t = strtod(v, &end);
      if (!*v || *end || !(t >= 0) || t > 1e7) usage("bad value '%s' for --timeout (expected seconds >= 0)", v);
      a->timeout_s = t;
    } else if ((v = value_of(argc, argv, &i, "--options"))) {
      a->options = v;
    } else if ((v = value_of(argc, argv, &i, "--jsonl"))) {
      a->jsonl = v;
    } else if ((v = value_of(argc, argv, &i, "--junit"))) {
      a->junit = v;
    } else if ((v = value_of(argc, argv, &i, "--sarif"))) {
      a->sarif = v;
    } else if ((v = value_of(argc, argv, &i, "--trace-dir"))) {
      a->trace_dir = v;
    } else if ((v = value_of(argc, argv, &i, "--coverage"))) {
      a->coverage_dir = v;
    } else if ((v = value_of(argc, argv, &i, "--shard-from-env"))) {
      char spec[48];
      snprintf(spec, sizeof spec, "/%.40s", v);
      parse_shard(spec, a);
    } else if ((v = value_of(argc, argv, &i, "--shard"))) {
      parse_shard(v, a);
    } else if (!strcmp(arg, "--merge")) {
      a->merge = true;
    } else if ((v = value_of(argc, argv, &i, "--keep"))) {
      a->keep = !strcmp(v, "all") ? -1 : (int)parse_count("--keep", v, 0, 1000000);
    } else if (!strcmp(arg, "--require-coverage")) {
      a->require_coverage = true;
    } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
      a->quiet = true;
    } else if (arg[0] == '-' && arg[1]) {
      usage("unknown option '%s'", arg);
    } else if (a->merge) {
      files[a->nmerge++] = argv[i];
    } else if (!target) {
      target = arg;
    } else {
      usage("'%s': the program's arguments go after '--' (simrun [options] PROGRAM [options] -- ARGS..., "
            "simrun [options] -- PROGRAM [ARGS...], or simrun [options] SCENARIO-FILE [options])", arg);
    }
  }
  a->merge_files = files;
  if (a->merge) {
    for (; i < argc; i++) files[a->nmerge++] = argv[i];
    if (a->nmerge == 0) usage("%s needs at least one JSON lines file", "--merge");
    return;
  }
  if (target) {
    /* PROGRAM given before '--': what follows '--' is its arguments. */
    if (argc - i + 1 > ST_ARGS_MAX) usage("%s", "too many program arguments (limit ST_ARGS_MAX)");
    char **args = st_xcalloc((size_t)(argc - i) + 2, sizeof *args);
    args[0] = (char *)target;
    for (int k = i; k < argc; k++) args[k - i + 1] = argv[k];
    a->argv = args;
  } else {
    if (i >= argc) usage("%s", "no program given (simrun [options] -- PROGRAM [ARGS...], or simrun [options] SCENARIO-FILE)");
    if (argc - i > ST_ARGS_MAX) usage("%s", "too many program arguments (limit ST_ARGS_MAX)");
    a->argv = argv + i;
  }
  if (!a->argv[0][0]) usage("%s", "the program name is empty");
  char **world = st_world_argv(a->argv);
  if (world) a->argv = world;
  if (strchr(a->options, ' ') || strchr(a->options, '\n'))
    usage("bad --options '%s' (DETSIM_OPTIONS is key=value:key=value, without spaces)", a->options);
  if (a->jobs == 0) {
    cpu_set_t set;
    long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = n < 1 ? 1 : n > SIMRUN_JOBS_MAX ? SIMRUN_JOBS_MAX : (int)n;
  }
}
