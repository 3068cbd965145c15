/* simfuzz's command line (simfuzz.h):
 *
 *   simfuzz [--seed N] [--out DIR] [--timeout S] [--fail-on CLASSES] [--schedule-features]
 *           [libFuzzer flags] [CORPUS-DIR...] -- PROGRAM [ARGS...]
 *
 * Its own options (two dashes) and the target come out of argv; what is
 * left is libFuzzer's (one dash).  The result goes into the environment,
 * which the processes libFuzzer starts of itself (-minimize_crash, -fork,
 * -jobs) inherit with a command line that no longer names the target. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simfuzz.h"
#include "st_classes.h"
#include "st_util.h"
#include "st_world.h"

struct sf_config sf;

static const char help_text[] =
"usage: simfuzz [options] [libFuzzer flags] [CORPUS-DIR...] -- PROGRAM [ARGS...]\n"
"       simfuzz [options] [libFuzzer flags] [CORPUS-DIR...] -- SCENARIO-FILE\n"
"\n"
"Coverage-guided exploration of a simulation build's schedules: libFuzzer's\n"
"inputs are the runs' scheduling decisions (DETSIM_OPTIONS choices=), and the\n"
"program's code coverage and the interleavings reached guide it.  PROGRAM is\n"
"a build made with detsim-cc --fuzz.  A scenario (or simworld SCENARIO-FILE)\n"
"fuzzes a world: the input is every node's scheduling decisions and the\n"
"world's fault draws, guided by the coverage of all its nodes (each a --fuzz\n"
"build).  Every failing run's input is saved with its replay line, then\n"
"libFuzzer records it as a crash (-minimize_crash=1 shrinks one).\n"
"\n"
"options:\n"
"  --seed N          DETSIM_SEED of every run: how a run goes on once its\n"
"                    input's bytes run out (default 1)\n"
"  --out DIR         where failing inputs are saved (default simfuzz-out;\n"
"                    made if missing)\n"
"  --timeout S       real seconds a run may take (default 10); the runtime's\n"
"                    watchdog gets the same bound\n"
"  --fail-on LIST    the classes that count as failures, comma-separated\n"
"                    (default: every class but pass and inconclusive)\n"
"  --schedule-features  let the interleavings reached (pairs of yield sites\n"
"                    meeting at a switch) guide too, not only the program's\n"
"                    coverage (off by default; it helps where coverage has\n"
"                    nothing to climb, as a deadlock: bench/README.md)\n"
"  --help            this text\n"
"libFuzzer's own flags take one dash: -runs=N, -max_total_time=S, -max_len=N,\n"
"-minimize_crash=1, -artifact_prefix=DIR/, -seed=N, -help=1 ...; simfuzz gives\n"
"-len_control=0 -max_len=" SF_MAX_LEN_DEFAULT " (a world: " SF_MAX_LEN_WORLD_DEFAULT ") unless they are given (inputs of every\n"
"length from the start).\n"
"\n"
"Exit status: libFuzzer's (0: no failure found; 77 by default, -error_exitcode,\n"
"when one was); 2 for a bad command line or scenario; 3 when PROGRAM (or a\n"
"node's program) is not a --fuzz build.\n";

static void set_fail_classes(const char *list) {
  memset(sf.fails, 0, sizeof sf.fails);
  const char *p = list;
  while (*p) {
    const char *e = strchr(p, ',');
    int n = e ? (int)(e - p) : (int)strlen(p);
    int cls = st_class_find(p, n);
    if (cls < 0 || cls >= (int)(sizeof sf.fails / sizeof sf.fails[0]))
      st_die(ST_EXIT_USAGE, "--fail-on: '%.*s' is not a class (runtime/classes.inc)", n, p);
    sf.fails[cls] = true;
    p += n;
    if (*p == ',') p++;
  }
}

static void default_fail_classes(void) {
  for (int c = 0; c < ST_CLASS_COUNT && c < (int)(sizeof sf.fails / sizeof sf.fails[0]); c++)
    sf.fails[c] = c != ST_CLASS_pass && c != ST_CLASS_inconclusive;
}

/* The configuration from the environment (the values checked already). */
static void from_env(void) {
  const char *target = getenv(SF_ENV_TARGET);
  if (target == NULL || target[0] == '\0')
    st_die(ST_EXIT_USAGE, "no target: simfuzz [options] [libFuzzer flags] -- PROGRAM [ARGS...] (see --help)");
  sf.target = st_xcalloc(SF_TARGET_ARGS_MAX + 1, sizeof *sf.target);
  char *copy = st_xstrdup(target);
  int n = 0;
  for (char *p = copy;;) {
    char *e = strchr(p, SF_ARG_SEP);
    if (e) *e = '\0';
    if (n == SF_TARGET_ARGS_MAX) st_die(ST_EXIT_USAGE, "more than %d target arguments", SF_TARGET_ARGS_MAX);
    sf.target[n++] = p;
    if (!e) break;
    p = e + 1;
  }
  /* A scenario runs through simworld (found next to simfuzz, else on
   * PATH), checked first: a bad one is named now, not by every run. */
  size_t len0 = strlen(sf.target[0]);
  if (len0 > 9 && !strcmp(sf.target[0] + len0 - 9, ".scenario") && access(sf.target[0], F_OK) != 0)
    st_die(ST_EXIT_USAGE, "%s: no such scenario file", sf.target[0]);
  char **world = st_world_argv(sf.target);
  if (world) {
    int k = 0;
    while (world[k]) k++;
    if (k < 2) st_die(ST_EXIT_USAGE, "simworld needs a scenario file: -- simworld SCENARIO-FILE");
    st_world_preflight(world[k - 1]);
    sf.target = world;
    sf.world = true;
    sf.scenario = world[k - 1];
  }
  const char *seed = getenv(SF_ENV_SEED);
  if (!seed || !st_parse_u64(seed, &sf.seed)) st_die(ST_EXIT_USAGE, "%s: not a seed", SF_ENV_SEED);
  sf.out = getenv(SF_ENV_OUT);
  if (!sf.out || !sf.out[0]) st_die(ST_EXIT_USAGE, "%s is not set", SF_ENV_OUT);
  uint64_t t;
  const char *timeout = getenv(SF_ENV_TIMEOUT);
  if (!timeout || !st_parse_u64(timeout, &t) || t == 0 || t > SF_TIMEOUT_S_MAX)
    st_die(ST_EXIT_USAGE, "%s: expected 1..%d seconds", SF_ENV_TIMEOUT, SF_TIMEOUT_S_MAX);
  sf.timeout_s = (unsigned)t;
  const char *sched = getenv(SF_ENV_SCHED);
  sf.sched_features = sched && !strcmp(sched, "1");
  const char *fail = getenv(SF_ENV_FAIL);
  if (fail && fail[0]) set_fail_classes(fail);
  else default_fail_classes();
}

/* Takes the value of "--name VALUE" or "--name=VALUE" at argv[*i]. */
static const char *option_value(int argc, char **argv, int *i, const char *name) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, n) != 0) return NULL;
  if (a[n] == '=') return a + n + 1;
  if (a[n] != '\0') return NULL;
  if (*i + 1 >= argc) st_die(ST_EXIT_USAGE, "%s needs a value", name);
  return argv[++*i];
}

void sf_config_init(int *argc, char ***argvp) {
  char **argv = *argvp;
  int dashdash = -1;
  for (int i = 1; i < *argc; i++)
    if (strcmp(argv[i], "--") == 0) {
      dashdash = i;
      break;
    }
  for (int i = 1; i < (dashdash < 0 ? *argc : dashdash); i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(help_text, stdout);
      exit(0);
    }
  if (dashdash < 0) {
    /* A copy of itself that libFuzzer started, or a target given before. */
    from_env();
    return;
  }
  if (dashdash + 1 >= *argc) st_die(ST_EXIT_USAGE, "no PROGRAM after --");
  const char *seed = "1", *out = "simfuzz-out", *timeout = NULL, *fail = NULL;
  bool sched = false;
  int kept = 1;
  for (int i = 1; i < dashdash; i++) {
    const char *v;
    if ((v = option_value(dashdash, argv, &i, "--seed"))) seed = v;
    else if ((v = option_value(dashdash, argv, &i, "--out"))) out = v;
    else if ((v = option_value(dashdash, argv, &i, "--timeout"))) timeout = v;
    else if ((v = option_value(dashdash, argv, &i, "--fail-on"))) fail = v;
    else if (!strcmp(argv[i], "--schedule-features")) sched = true;
    else if (strncmp(argv[i], "--", 2) == 0) st_die(ST_EXIT_USAGE, "unknown option '%s' (see --help)", argv[i]);
    else argv[kept++] = argv[i]; /* libFuzzer's */
  }
  uint64_t x;
  if (!st_parse_u64(seed, &x)) st_die(ST_EXIT_USAGE, "--seed %s: not a seed (a decimal number)", seed);
  if (timeout && (!st_parse_u64(timeout, &x) || x == 0 || x > SF_TIMEOUT_S_MAX))
    st_die(ST_EXIT_USAGE, "--timeout %s: expected 1..%d seconds", timeout, SF_TIMEOUT_S_MAX);
  if (mkdir(out, 0777) != 0 && errno != EEXIST) st_die(ST_EXIT_USAGE, "--out %s: %s", out, strerror(errno));
  char *out_abs = realpath(out, NULL);
  if (out_abs == NULL) st_die(ST_EXIT_USAGE, "--out %s: %s", out, strerror(errno));
  if (strchr(out_abs, ':'))
    st_die(ST_EXIT_USAGE, "--out %s: a path with ':' cannot go into DETSIM_OPTIONS", out_abs);
  if (*argc - dashdash - 1 > SF_TARGET_ARGS_MAX) st_die(ST_EXIT_USAGE, "more than %d target arguments", SF_TARGET_ARGS_MAX);
  struct st_buf b = {0};
  for (int i = dashdash + 1; i < *argc; i++) {
    if (strchr(argv[i], SF_ARG_SEP)) st_die(ST_EXIT_USAGE, "a target argument holds the byte 0x1f");
    if (i > dashdash + 1) st_buf_add(&b, (char[]){ SF_ARG_SEP }, 1);
    st_buf_puts(&b, argv[i]);
  }
  char timeout_text[24];
  snprintf(timeout_text, sizeof timeout_text, "%s", timeout ? timeout : "10");
  _Static_assert(SF_TIMEOUT_S_DEFAULT == 10, "the default above");
  if (setenv(SF_ENV_TARGET, b.s, 1) || setenv(SF_ENV_SEED, seed, 1) || setenv(SF_ENV_OUT, out_abs, 1) ||
      setenv(SF_ENV_TIMEOUT, timeout_text, 1) || setenv(SF_ENV_FAIL, fail ? fail : "", 1) ||
      setenv(SF_ENV_SCHED, sched ? "1" : "0", 1))
    st_die(ST_EXIT_HARNESS, "setenv: %s", strerror(errno));
  st_buf_free(&b);
  free(out_abs);
  /* libFuzzer's defaults grow inputs from 4 bytes slowly (len_control) and
   * up to 4096 bytes; a schedule's first decisions matter most, and a few
   * dozen of them were enough for every planted bug in bench/explore.sh.
   * The argv slots of "--" and PROGRAM, taken out, hold the two flags. */
  bool have_len_control = false, have_max_len = false;
  for (int i = 1; i < kept; i++) {
    if (!strncmp(argv[i], "-len_control=", 13)) have_len_control = true;
    if (!strncmp(argv[i], "-max_len=", 9)) have_max_len = true;
  }
  from_env();
  if (!have_len_control) argv[kept++] = "-len_control=0";
  if (!have_max_len) argv[kept++] = sf.world ? "-max_len=" SF_MAX_LEN_WORLD_DEFAULT : "-max_len=" SF_MAX_LEN_DEFAULT;
  argv[kept] = NULL;
  *argc = kept;
}
