/* simrun: sweeps seeds over a simulation build, each seed in its own
 * supervised process, and reports what it found.
 *
 * The parts, one file each:
 *   args.c      the command line (and --help, which documents the exit
 *               statuses and formats)
 *   preflight.c checks before any seed runs: is PROGRAM a simulation build,
 *               does its runtime know the `level` option
 *   sweep.c     runs the seeds in parallel child processes (-j), with
 *               timeouts
 *   progress.c  the live progress line on a terminal
 *   classify.c  turns one finished child into a record (or a harness error)
 *   prune.c     bounds the traces and world logs failing seeds leave
 *   stats.c     folds records into the sweep's totals (classes, signatures,
 *               invariants, simulated time)
 *   report.c    the SIMULATION REPORT on stdout
 *   jsonl.c     JSON lines out, and back in for --merge
 *   junit.c, sarif.c   the other machine-readable outputs
 */
#ifndef SIMRUN_H
#define SIMRUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "st_outcome.h"
#include "st_seeds.h"
#include "st_util.h"

/* simrun's own exit statuses, beyond st_util.h's 0-3. */
#define SIMRUN_EXIT_COVERAGE 4       /* --require-coverage: every seed passed, a point was never reached */
#define SIMRUN_EXIT_INTERRUPTED 130 /* SIGINT/SIGTERM: the report covers the seeds that ran */

struct simrun_args {
  const char *seeds_spec;   /* NULL: the level's count */
  int level;                /* 1..3 */
  bool level_given;
  int jobs;
  double timeout_s;         /* 0: none */
  const char *options;      /* the user's DETSIM_OPTIONS ("" if none) */
  const char *jsonl, *junit, *sarif;
  const char *trace_dir;
  const char *coverage_dir; /* --coverage DIR: source coverage profiles and reports */
  uint64_t shard_index, shard_count; /* count 1: no sharding */
  const char *shard_source; /* where the shard index came from (for the report) */
  bool quiet;
  bool require_coverage;    /* a SOMETIMES/REACHABLE point never reached fails the sweep */
  int keep;                 /* --keep: failing seeds per signature whose files stay (-1: all) */
  bool merge;
  char **merge_files;
  int nmerge;
  char **argv;              /* PROGRAM ARGS..., NULL-terminated */
};

/* One seed's result, kept for every seed (72 bytes). */
struct simrun_result {
  uint64_t seed, events, history, sim_us;
  uint64_t index;      /* position in the whole seed set (before sharding) */
  double wall_s;
  double cpu_s;        /* CPU time of its process (and a world's nodes) */
  int cls;             /* st_classes.h */
  int exit_status;     /* the process's: status, or 128+signal */
  int sig;             /* signature id in stats, -1 for pass */
  bool has_history;    /* events/history known (not a timeout) */
};

/* A finished seed with everything the outputs need (valid during the call
 * to simrun_record_done only). */
struct simrun_record {
  struct simrun_result r;
  const char *signature;  /* NULL for pass */
  const struct st_check *checks;
  int nchecks;
  const struct st_check *faults; /* a world's faults by kind */
  int nfaults;
  const struct st_point *points; /* coverage points, reached or not */
  int npoints;
  const char *trace;      /* trace file, or NULL */
  const char *logs;       /* a failing world's log directory, or NULL */
  const char *tail;       /* last lines of stderr (failures), or NULL */
  const char *own;        /* its own first lines (st_own_lines; failures), or NULL */
};

/* What every output says about the sweep as a whole. */
struct simrun_sweep_info {
  char **argv;
  const char *options;       /* the user's (for reproduction lines) */
  const char *repro_options; /* what a reproduction must set: the user's, plus level= when passed */
  int level;
  bool level_passed;         /* the runtime got level= */
  const char *seeds_label;
  uint64_t seeds_total;      /* in the whole set */
  uint64_t shard_index, shard_count;
  int jobs;
  double wall_s;
  bool wall_is_sum;          /* merged: the runs' wall times summed */
  bool interrupted;
  bool require_coverage;
  int merged_files;
  char *source_coverage;     /* --coverage: the report's SOURCE COVERAGE section, or NULL */
};

/* ---- args.c ---- */
void simrun_parse_args(int argc, char **argv, struct simrun_args *a);

/* ---- preflight.c ---- */
/* Exits with ST_EXIT_HARNESS when PROGRAM is certainly not a simulation
 * build (an ELF without libdetsim_rt and without detsim symbols), or cannot
 * be found.  Returns true when its ELF links libdetsim_rt. */
bool simrun_preflight(char **argv);
/* Whether the program's runtime lists DETSIM_OPTIONS key `key` in its
 * help=1 output (one short run of the program, which exits before main). */
bool simrun_runtime_has_option(char **argv, const char *key);

/* ---- stats.c ---- */
void simrun_stats_init(uint64_t expected);
/* Folds a record in; returns the signature id it got (-1 for pass). */
int simrun_stats_add(const struct simrun_record *rec);
struct simrun_result *simrun_stats_results(uint64_t *n);
uint64_t simrun_stats_failed(void);
uint64_t simrun_stats_sim_us(void);
double simrun_stats_cpu_s(void); /* summed over the runs */
uint64_t simrun_stats_class_count(int cls);
/* Signatures, in order of their first failing seed. */
int simrun_stats_nsigs(void);
const char *simrun_stats_sig_text(int id);
int simrun_stats_sig_class(int id);
uint64_t simrun_stats_sig_count(int id);
/* Up to `max` seeds of the signature in index order; returns how many. */
int simrun_stats_sig_seeds(int id, uint64_t *seeds, int max);
uint64_t simrun_stats_sig_first_seed(int id);
uint64_t simrun_stats_sig_first_index(int id);
/* The stored tail of the seed with result index i, or NULL. */
const char *simrun_stats_tail(uint64_t i);
/* The first failure (lowest index): its result, or NULL. */
const struct simrun_result *simrun_stats_first_failure(void);
/* Its stderr tail (kept whatever the SIMRUN_TAILS_BYTES_MAX budget), or NULL. */
const char *simrun_stats_first_tail(void);
/* Its own first lines (the program's, not detsim's), or NULL. */
const char *simrun_stats_first_own(void);
/* Invariants: names in order of first sight. */
int simrun_stats_nchecks(void);
void simrun_stats_check(int i, const char **name, uint64_t *total, uint64_t *runs);
/* Faults exercised, by kind (worlds at level 2 and up). */
int simrun_stats_nfaults(void);
void simrun_stats_fault(int i, const char **name, uint64_t *total, uint64_t *runs);
/* Seeds of signature `id` that had fault kind `k` (an index of
 * simrun_stats_fault) at least once, and passing seeds that had it. */
uint64_t simrun_stats_sig_fault_runs(int id, int k);
uint64_t simrun_stats_fault_pass_runs(int k);
/* Coverage points, in order of first sight: kind, name, hits and
 * evaluations summed over the runs, runs that reached it (SOMETIMES: with
 * its condition true), and runs that knew it. */
int simrun_stats_npoints(void);
void simrun_stats_point(int i, int *kind, const char **name, uint64_t *hits, uint64_t *evals, uint64_t *runs_hit,
                        uint64_t *runs_known);
/* SOMETIMES and REACHABLE points no run reached. */
int simrun_stats_points_missed(void);
/* Results sorted by index (for merged sweeps and the final outputs). */
void simrun_stats_sort(void);

/* ---- prune.c ---- */
#define SIMRUN_KEEP_DEFAULT 3 /* failing seeds per signature whose trace and logs stay */
/* keep: failing seeds per signature whose files stay; -1 keeps all. */
void simrun_prune_init(int keep);
/* A failing seed's trace and log directory: kept, or deleted (now or
 * when lower seeds of its signature displace it). */
void simrun_prune_note(const char *signature, uint64_t index, const char *trace, const char *logs);
uint64_t simrun_prune_count(void);
int simrun_prune_keep(void);
/* The kept files of the seed at `index`: false if none are kept. */
bool simrun_prune_kept(uint64_t index, const char **trace, const char **logs);

/* ---- coverage.c ---- */
/* --coverage DIR: merges the sweep's profiles (llvm-profdata) and reports
 * on the program's (or a world's nodes') source coverage (llvm-cov); the
 * section for the report (malloc'd). */
char *simrun_source_coverage(const char *dir, char **argv, uint64_t runs);

/* ---- jsonl.c ---- */
void simrun_jsonl_open(const char *path);
void simrun_jsonl_write(const struct simrun_record *rec, const struct simrun_sweep_info *info);
void simrun_jsonl_close(void);
/* --merge: reads the files, feeds every record to simrun_record_done in
 * index order, fills info.  Exits 2 on a bad file. */
void simrun_merge(char **files, int n, struct simrun_sweep_info *info);

/* ---- junit.c, sarif.c ---- */
void simrun_junit_write(const char *path, const struct simrun_sweep_info *info);
void simrun_sarif_write(const char *path, const struct simrun_sweep_info *info);

/* ---- report.c ---- */
void simrun_report(FILE *out, const struct simrun_sweep_info *info, bool quiet);
/* The sweep's verdict: PASSED, FAILED, INTERRUPTED (and its exit status). */
bool simrun_coverage_failed(const struct simrun_sweep_info *info);
const char *simrun_result_word(const struct simrun_sweep_info *info);
int simrun_exit_status(const struct simrun_sweep_info *info);
/* The reproduction command lines of a seed. */
void simrun_repro_env(struct st_buf *b, const struct simrun_sweep_info *info, uint64_t seed);
void simrun_repro_replay(struct st_buf *b, const struct simrun_sweep_info *info, uint64_t seed);

/* ---- sweep.c ---- */
struct simrun_plan {
  const struct simrun_args *a;
  const struct st_seeds *seeds;
  const char *run_options;  /* DETSIM_OPTIONS every run gets before pinning */
  bool pin;                 /* add cpu=<n> per worker */
  bool quiet_runtime;       /* the user's options set quiet=1: no first line */
  bool known_simulation;    /* PROGRAM's ELF links libdetsim_rt */
};
/* Runs the shard's seeds; returns false when interrupted. */
bool simrun_sweep(const struct simrun_plan *plan, struct simrun_sweep_info *info);

/* ---- progress.c ---- */
void simrun_progress_start(uint64_t total, bool quiet);
void simrun_progress_update(uint64_t done, uint64_t failed);
void simrun_progress_end(void);

/* ---- classify.c ---- */
/* Builds the record of a finished child and hands it on; exits with
 * ST_EXIT_HARNESS or ST_EXIT_USAGE (after `cleanup`) when the run shows the
 * program is not a simulation build or the options are bad. */
struct st_child;
void simrun_classify(struct st_child *c, uint64_t seed, uint64_t index, const struct simrun_plan *plan,
                     const struct simrun_sweep_info *info, void (*cleanup)(void));

/* main.c: where every finished record goes (stats and JSON lines). */
void simrun_record_done(const struct simrun_record *rec, const struct simrun_sweep_info *info);

#endif
