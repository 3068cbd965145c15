/* simreplay: re-runs one seed of a simulation build and checks that it
 * takes the same history; locates the first diverging event when it does
 * not; prints a run's trace; stops a run at an event for a debugger; and
 * compares the histories of two builds.
 *
 * The parts, one file each:
 *   args.c     the command line and --help (the exit statuses)
 *   target.c   what to replay: seed, options, command and the expected
 *              outcome, from flags, pasted lines or a trace file
 *   run.c      one traced run of a seed (a child process), with its outcome
 *              and its trace file read back
 *   replay.c   --repeat: K runs against the expectation, and the verdict
 *   diverge.c  the report of where two traces part
 *   tracefmt.c --trace: a trace, formatted for reading
 *   breakat.c  --break-at N: stop the run at event N for gdb
 *   compare.c  --compare RELEASE VERIFY: the builds' histories, seed by seed
 *   symbolize.c call sites (module+offset) as function and file:line
 *   shrink.c   --shrink: the fewest scheduling decisions that fail the same way
 */
#ifndef SIMREPLAY_H
#define SIMREPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "st_outcome.h"
#include "st_trace.h"
#include "st_util.h"

/* simreplay's exit status when a replay took another history: the
 * runtime's `diverged` class status (87), read from classes.inc. */

struct sr_args {
  bool have_seed;
  uint64_t seed;
  const char *options;   /* --options, or NULL */
  int repeat;            /* 0: the default (1 with an expectation, else 2) */
  bool trace;
  uint64_t break_at;     /* 0: none */
  bool gdb;
  const char *compare_release, *compare_verify;
  const char *seeds_spec;
  double timeout_s;
  bool quiet;
  bool shrink;
  const char *shrink_out; /* --out, or NULL: detsim-<seed>.plan */
  uint64_t shrink_runs;   /* --shrink-runs, 0: the default */
  char **inputs;         /* pasted lines and trace files */
  int ninputs;
  char **argv;           /* after --, or NULL */
};

struct sr_target {
  uint64_t seed;
  char *options;         /* DETSIM_OPTIONS the original run had ("" none) */
  char **argv;
  bool expect;           /* an expected outcome is known */
  int cls;               /* expected class, -1 unknown (a trace file) */
  uint64_t history, events;
  bool have_output;       /* the expected output digest (output=) is known */
  uint64_t output;
  const char *expect_from;
  struct st_trace *trace; /* the trace file given, or NULL */
  char *plan_file;        /* a schedule plan given, or NULL */
};

struct sr_run {
  bool result;            /* a result line */
  int cls;
  uint64_t history, events;
  bool have_output;       /* the result line's output= digest */
  uint64_t output;
  bool killed;            /* the timeout */
  int exit_status;
  char *stderr_text;
  bool have_trace;
  struct st_trace trace;
  char trace_err[512];
};

/* ---- args.c ---- */
void sr_parse_args(int argc, char **argv, struct sr_args *a);

/* ---- target.c ---- */
void sr_target_resolve(const struct sr_args *a, struct sr_target *t);
/* Exits 3 when PROGRAM is certainly not a simulation build. */
void sr_check_program(const char *prog);

/* ---- run.c ---- */
/* Runs seed with `options` (the original run's) made fit for a traced
 * replay; exits 2/3 on a usage or harness error.  With unless_history, the
 * run writes its trace only when it takes another history (so a replay
 * that replays costs no trace). */
void sr_run(char **argv, uint64_t seed, const char *options, uint64_t expect_events, double timeout_s,
            bool want_trace, const uint64_t *unless_history, struct sr_run *r);
void sr_run_free(struct sr_run *r);
/* "crash history=... events=..." of a run (static buffer). */
const char *sr_run_text(const struct sr_run *r);
/* DETSIM_OPTIONS without the keys a replay sets itself. */
char *sr_options_for_replay(const char *options);
/* DETSIM_OPTIONS (key=value:...) without the given keys (malloc'd). */
char *sr_options_without(const char *options, const char *const *keys, size_t nkeys);

/* ---- replay.c ---- */
int sr_replay(const struct sr_args *a, struct sr_target *t);

/* ---- diverge.c ---- */
/* Prints where trace a (named name_a) and trace b part; false when the
 * traces do not show it (then says why). */
bool sr_print_divergence(const struct st_trace *a, const char *name_a, const struct st_trace *b, const char *name_b);

/* ---- tracefmt.c ---- */
void sr_print_trace(const struct st_trace *t);

/* ---- breakat.c ---- */
int sr_break_at(const struct sr_args *a, const struct sr_target *t);

/* ---- symbolize.c ---- */
/* Registers a program whose trace sites may be turned into source lines. */
void sr_symbolize_program(const char *prog);
/* "function file:line" for a site "module+0xOFF" (malloc'd), or NULL. */
char *sr_symbolize_site(const char *site, size_t len);

/* ---- shrink.c ---- */
/* One run of a shrink (trial.c): the target with `options`; returns what it
 * printed on stderr (malloc'd).  A usage error of the runtime ends simreplay. */
struct sr_trial {
  bool result;
  int cls;
  uint64_t events, history;
  char *signature; /* NULL without a result */
};
char *sr_trial_run(const struct sr_target *t, const char *options, double timeout_s, struct sr_trial *out);
bool sr_trial_same(const struct sr_trial *r, int cls, const char *signature);
void sr_trial_free(struct sr_trial *r);
/* What a shrink says of its first run: -1 when it failed and replays (the
 * shrink goes on); else, after saying why not, the exit status. */
int sr_shrink_first_run(const struct sr_target *t, const struct sr_trial *orig);
/* "DETSIM_SEED=N DETSIM_OPTIONS='options' program args", for a shell. */
char *sr_replay_line(const struct sr_target *t, const char *options);

/* Delta debugging (ddmin.c): shrinks keep[0..total) to a small subset for
 * which keeps() still holds, while may_run() allows another run. */
struct sr_ddmin_ops {
  bool (*keeps)(void *ctx, const bool *subset);
  bool (*may_run)(void *ctx);
};
void sr_ddmin(size_t total, bool *keep, const struct sr_ddmin_ops *ops, void *ctx);

/* --shrink of a world (shrink_faults.c): the fewest faults that still fail. */
int sr_shrink_faults(const struct sr_args *a, struct sr_target *t);
int sr_shrink(const struct sr_args *a, struct sr_target *t);

/* ---- compare.c ---- */
int sr_compare(const struct sr_args *a);

#endif
