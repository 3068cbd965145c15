/* simfuzz: coverage-guided exploration of a simulation build's schedules
 * with libFuzzer (docs/fuzzing.md).
 *
 * libFuzzer owns main and the loop; simfuzz is its callbacks.  Each input
 * is a choices file (runtime/fuzz_abi.h): the target, a detsim-cc
 * --fuzz build, runs as a supervised child with DETSIM_OPTIONS
 * choices=<input>:fuzz_out=<file>, and the program counters it writes
 * there (and, with --schedule-features, its scheduling features) are copied
 * into a counter region simfuzz registered with libFuzzer, so the corpus
 * grows on new program coverage (and new interleavings).  A failing run saves its input, prints its replay
 * line and traps, so libFuzzer records it (and -minimize_crash=1 shrinks it).
 * A scenario is a world's target: simworld runs it, the input is every
 * node's decisions and the world's fault draws, and the coverage is the
 * merge of all the nodes' (docs/fuzzing.md, "Worlds").
 *
 * Parts: config.c (the command line, kept in the environment so that the
 * copies of itself libFuzzer starts, as -minimize_crash does, see it too),
 * run.c (one run of the target and its coverage), fuzz.c (the callbacks).
 */
#ifndef SIMFUZZ_H
#define SIMFUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The environment variables that carry the configuration to libFuzzer's
 * own child processes. */
#define SF_ENV_TARGET "SIMFUZZ_TARGET"   /* argv, separated by SF_ARG_SEP */
#define SF_ENV_SEED "SIMFUZZ_SEED"
#define SF_ENV_OUT "SIMFUZZ_OUT"
#define SF_ENV_TIMEOUT "SIMFUZZ_TIMEOUT"
#define SF_ENV_FAIL "SIMFUZZ_FAIL"       /* class names, comma-separated */
#define SF_ENV_SCHED "SIMFUZZ_SCHEDULE_FEATURES" /* 1: interleavings guide too */
#define SF_ARG_SEP '\x1f'

/* Real seconds a run may take by default before it is stopped (the
 * runtime's watchdog gets the same bound for a run without events). */
#define SF_TIMEOUT_S_DEFAULT 10
#define SF_TIMEOUT_S_MAX 3600
/* libFuzzer's -max_len unless given: decisions an input holds at most (a
 * world's input also holds its fault draws, and every node's choices). */
#define SF_MAX_LEN_DEFAULT "64"
#define SF_MAX_LEN_WORLD_DEFAULT "256"
/* Arguments of the target. */
#define SF_TARGET_ARGS_MAX 256

struct sf_config {
  char **target;     /* argv of the target, NULL-terminated (a world's:
                        simworld's full path, its flags, the scenario) */
  bool world;        /* the target is a scenario, run by simworld */
  const char *scenario; /* then its scenario file */
  uint64_t seed;     /* DETSIM_SEED of every run: the PRNG after the bytes run out */
  const char *out;   /* where failing inputs are saved */
  unsigned timeout_s;
  bool fails[32];    /* by class (st_classes.h): counts as a failure */
  bool sched_features; /* interleavings reached guide too, not only program coverage */
};

extern struct sf_config sf;

/* Reads simfuzz's own arguments out of argv (leaving libFuzzer's), or the
 * environment when there are none (a child of libFuzzer); dies on bad ones. */
void sf_config_init(int *argc, char ***argv);

/* One run of the target on a choices file. */
struct sf_run {
  int cls;              /* the result line's class; -1 with none */
  char *result_line;    /* malloc'd, or NULL */
  char *stderr_text;    /* malloc'd */
  uint32_t counters;    /* program counters the run wrote */
  uint64_t choices_used;
  bool have_coverage;   /* fuzz_out was written */
};

/* Runs the target with DETSIM_OPTIONS choices=input:fuzz_out=...; copies
 * the run's counters into counters[0..n_counters) and its scheduling
 * features into features[0..n_features) (zero when the run wrote none). */
void sf_run(const char *input_path, uint8_t *counters, size_t n_counters, uint8_t *features, size_t n_features,
            struct sf_run *r);
void sf_run_free(struct sf_run *r);
/* The per-process scratch directory (made on first use, removed at exit). */
const char *sf_workdir(void);
/* Removes it (at exit, and before a failure's trap: libFuzzer then exits
 * without running atexit handlers). */
void sf_workdir_remove(void);

#endif
