/* simreplay's command line: parsing, checking, and --help.  Every problem
 * is a message naming it and exit status 2, before anything runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simreplay.h"
#include "st_limits.h"

static const char help_text[] =
"usage: simreplay [options] --seed N -- PROGRAM [ARGS...]\n"
"       simreplay [options] 'detsim: <class> seed=N events=E history=H ...' -- PROGRAM [ARGS...]\n"
"       simreplay [options] 'detsim: seed=N replay: DETSIM_SEED=N [DETSIM_OPTIONS=...] PROGRAM ARGS...'\n"
"       simreplay [options] TRACE-FILE\n"
"       simreplay [options] PLAN-FILE\n"
"       simreplay --shrink [--out FILE] <any of the above>\n"
"       simreplay --compare RELEASE-PROGRAM VERIFY-PROGRAM [--seeds SPEC] [-- ARGS...]\n"
"\n"
"Re-runs one seed of a simulation build and checks that it takes the same\n"
"history: the same class, history hash and event count.\n"
"\n"
"What to replay:\n"
"  --seed N            the seed; the program and its arguments follow --\n"
"  a pasted result line (the run's last stderr line) gives the seed and the\n"
"                      expected class, events and history; it carries no\n"
"                      command, so PROGRAM follows --\n"
"  a pasted first line ('detsim: seed=N replay: ...') gives the seed, the\n"
"                      options and the command.  Both lines may be given (as\n"
"                      two arguments or one with a newline)\n"
"  TRACE-FILE          a trace file the runtime wrote (DETSIM_OPTIONS trace=):\n"
"                      its header names the seed, events, history, options and\n"
"                      command, and its events are the expected side when the\n"
"                      replay diverges.  A truncated or corrupted file is\n"
"                      refused, naming the line\n"
"  PLAN-FILE           a schedule plan (--shrink writes them): replays the\n"
"                      seed, options and command of its 'replay:' line with\n"
"                      DETSIM_OPTIONS plan=PLAN-FILE, expecting its class and\n"
"                      history.  A truncated or edited plan is refused\n"
"Without an expected outcome (--seed alone, a first line) the first run is\n"
"the reference the others are checked against.\n"
"\n"
"options:\n"
"  --options STR       DETSIM_OPTIONS of the original run (a pasted first line\n"
"                      or a trace file brings its own)\n"
"  --repeat K          run K separate processes (default 1 with an expected\n"
"                      outcome, 2 without); prints 'replays exactly (K of K)'\n"
"                      or 'replays k of K'\n"
"  --trace             print the (first) run's trace: event, virtual time,\n"
"                      thread, kind, value, object, site\n"
"  --break-at N        run once with DETSIM_OPTIONS break_at=N: the runtime stops\n"
"                      the process (SIGSTOP) at event N; simreplay prints\n"
"                      'gdb -p <pid>' and waits for the process to end (continue\n"
"                      it from gdb, or kill -CONT <pid>)\n"
"  --gdb               with --break-at: exec gdb -p <pid> at the stop (gdb is\n"
"                      then the process's parent, which ptrace_scope=1 allows)\n"
"  --timeout S         wall-clock seconds per run (default 600; 0: none)\n"
"  --shrink            shrink a failing run to the fewest scheduling decisions\n"
"                      that fail with the same class and signature (delta\n"
"                      debugging over its recorded schedule plan); prints the\n"
"                      sizes before and after and writes the plan, which\n"
"                      'simreplay PLAN-FILE' replays\n"
"  --out FILE          with --shrink: where the plan goes (default\n"
"                      detsim-<seed>.plan in the working directory)\n"
"  --shrink-runs N     with --shrink: at most N runs of the program (default\n"
"                      2000); a smaller, maybe not minimal, plan when spent\n"
"  -q, --quiet         only the verdict line\n"
"  -h, --help          this text\n"
"\n"
"Every run has DETSIM_OPTIONS trace=<tmp>:trace_always=1 and, once the\n"
"expected history is known, expect_history=<it>: runs that replay write no\n"
"trace.  When a run diverges, simreplay compares its trace with one of the\n"
"expected history (the trace file given, run 1, or one more traced run)\n"
"event by event on the event number,\n"
"virtual time, thread, kind and value (obj= and call sites are addresses and\n"
"only shown), then prints the first event that differs, both sides' lines\n"
"and the call site, with its function and file:line when the program has\n"
"debug info (-g) and llvm-symbolizer or addr2line is there.\n"
"\n"
"--compare RELEASE VERIFY runs both programs on each seed (--seeds SPEC as in\n"
"simrun, default 1-10) with the same arguments and reports every seed whose\n"
"histories differ, with the first diverging event.  RELEASE here is the\n"
"simulation build without --verify: a verify build (detsim-cc --verify) must\n"
"take the same history as it for every seed.  A true release build (plain\n"
"clang, no detsim) cannot run under a seed: given one as RELEASE, simreplay\n"
"checks instead that it carries no trace of detsim (no libdetsim_rt in\n"
"DT_NEEDED, no detsim dynamic symbols), says so, and compares nothing.\n"
"\n"
"exit status:\n"
"  0   replays exactly (whatever the run's class: a crash that reproduces\n"
"      exactly is a replay that worked; the class is in the verdict line);\n"
"      --compare: the same histories, or a plain RELEASE with no trace of\n"
"      detsim; --break-at: the run has ended (its class is printed)\n"
"  87  diverged: a run took another history (the runtime's `diverged`\n"
"      status; --compare: the builds' histories differ)\n"
"  1   --compare: the plain RELEASE build carries detsim symbols or the runtime;\n"
"      --shrink: the run passed (or was inconclusive): nothing to shrink\n"
"  2   usage error: bad option, seed, pasted line, trace or plan file\n"
"  3   harness error: PROGRAM cannot be executed or is not a simulation build\n";

static _Noreturn void usage(const char *fmt, const char *arg) {
  fprintf(stderr, "simreplay: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(simreplay --help for usage)\n");
  exit(ST_EXIT_USAGE);
}

static const char *value_of(int argc, char **argv, int *i, const char *name) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n)) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  if (arg[n] != '\0') return NULL;
  if (*i + 1 >= argc) usage("option %s needs a value", name);
  return argv[++*i];
}

static uint64_t parse_num(const char *opt, const char *v, uint64_t min, uint64_t max) {
  uint64_t x;
  if (!st_parse_u64(v, &x) || x < min || x > max) {
    fprintf(stderr, "simreplay: bad value '%s' for %s (expected a whole number in %llu..%llu)\n(simreplay --help for usage)\n",
            v, opt, (unsigned long long)min, (unsigned long long)max);
    exit(ST_EXIT_USAGE);
  }
  return x;
}

void sr_parse_args(int argc, char **argv, struct sr_args *a) {
  memset(a, 0, sizeof *a);
  a->timeout_s = 600;
  a->inputs = st_xcalloc((size_t)argc + 1, sizeof *a->inputs);
  bool shrink = false, shrink_sub = false;
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
    } else if ((v = value_of(argc, argv, &i, "--seed"))) {
      if (!st_parse_u64(v, &a->seed))
        usage("bad --seed '%s' (expected a decimal seed in 0..18446744073709551615)", v);
      a->have_seed = true;
    } else if ((v = value_of(argc, argv, &i, "--options"))) {
      a->options = v;
    } else if ((v = value_of(argc, argv, &i, "--repeat"))) {
      a->repeat = (int)parse_num("--repeat", v, 1, SIMREPLAY_REPEAT_MAX);
    } else if ((v = value_of(argc, argv, &i, "--break-at"))) {
      a->break_at = parse_num("--break-at", v, 1, UINT64_MAX);
    } else if ((v = value_of(argc, argv, &i, "--timeout"))) {
      char *end;
      double t = strtod(v, &end);
      if (!*v || *end || !(t >= 0) || t > 1e7) usage("bad value '%s' for --timeout (expected seconds >= 0)", v);
      a->timeout_s = t;
    } else if (!strcmp(arg, "--compare")) {
      if (i + 2 >= argc) usage("%s needs two programs: --compare RELEASE-PROGRAM VERIFY-PROGRAM", arg);
      a->compare_release = argv[++i];
      a->compare_verify = argv[++i];
    } else if (!strcmp(arg, "--trace")) {
      a->trace = true;
    } else if (!strcmp(arg, "--gdb")) {
      a->gdb = true;
    } else if (!strcmp(arg, "--shrink")) {
      shrink = true;
    } else if ((v = value_of(argc, argv, &i, "--out"))) {
      if (!*v) usage("%s", "--out needs a file name");
      a->shrink_out = v;
      shrink_sub = true;
    } else if ((v = value_of(argc, argv, &i, "--shrink-runs"))) {
      a->shrink_runs = parse_num("--shrink-runs", v, 1, SIMREPLAY_SHRINK_RUNS_MAX);
      shrink_sub = true;
    } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
      a->quiet = true;
    } else if (arg[0] == '-' && arg[1]) {
      usage("unknown option '%s'", arg);
    } else {
      a->inputs[a->ninputs++] = argv[i];
    }
  }
  if (i < argc) a->argv = argv + i;
  a->shrink = shrink;
  if (shrink_sub && !shrink) usage("%s", "--out and --shrink-runs are options of --shrink");
  if (shrink && (a->break_at || a->trace || a->repeat || a->compare_release))
    usage("%s", "--shrink cannot be combined with --break-at, --trace, --repeat or --compare");
  if (a->gdb && !a->break_at) usage("%s needs --break-at N", "--gdb");
  if (a->argv && !a->argv[0][0]) usage("%s", "the program name after -- is empty");
  if (a->argv && !a->argv[0] && !a->compare_release) usage("%s", "no program after --");
  if (a->compare_release) {
    if (a->have_seed || a->ninputs || a->break_at || a->trace)
      usage("%s takes only --seeds, --options, --timeout and -- ARGS", "--compare");
    return;
  }
  if (a->seeds_spec) usage("%s is an option of --compare (replay one seed with --seed N)", "--seeds");
  if (a->break_at && a->repeat > 1) usage("%s runs once: it cannot be combined with --repeat", "--break-at");
  if (!a->have_seed && a->ninputs == 0)
    usage("%s", "nothing to replay: give --seed N -- PROGRAM, a pasted 'detsim:' line, or a trace file");
}
