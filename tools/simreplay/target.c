/* What to replay, from the command line: the seed, the original run's
 * DETSIM_OPTIONS and command, and the expected outcome when one is known.
 *
 * Sources, which must agree where they overlap (else a usage error naming
 * both values):
 *   --seed N, --options STR, -- PROGRAM ARGS
 *   a pasted result line   detsim: <class> seed=N events=E history=H ...
 *   a pasted first line    detsim: seed=N replay: DETSIM_SEED=N [DETSIM_OPTIONS=O] PROGRAM ARGS
 *   a trace file           its "# seed=" and "# replay:" header lines
 *   a schedule plan        its "seed", "# class=" and "# replay:" lines; the
 *                          replay runs with plan=<the file given>
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "simreplay.h"
#include "st_classes.h"
#include "st_elf.h"
#include "st_plan.h"
#include "st_scenario.h"
#include "st_world.h"

static void set_seed(struct sr_target *t, bool *have, uint64_t seed, const char *from) {
  static const char *first_from;
  if (*have && t->seed != seed)
    st_die(ST_EXIT_USAGE, "the seed from %s (%llu) is not the seed from %s (%llu)", from, (unsigned long long)seed,
           first_from, (unsigned long long)t->seed);
  t->seed = seed;
  *have = true;
  first_from = from;
}

/* "DETSIM_SEED=N [DETSIM_OPTIONS=O] PROGRAM ARGS": the replay command of a
 * first line or a trace header. */
static void take_command(struct sr_target *t, bool *have_seed, const char *cmd, const char *from, bool *have_cmd) {
  char **w;
  int n = st_shell_split(cmd, &w);
  if (n < 0) st_die(ST_EXIT_USAGE, "%s: the command has an unterminated quote: %s", from, cmd);
  int i = 0;
  if (i < n && !strncmp(w[i], "DETSIM_SEED=", 12)) {
    uint64_t s;
    if (!st_parse_u64(w[i] + 12, &s)) st_die(ST_EXIT_USAGE, "%s: bad %s", from, w[i]);
    set_seed(t, have_seed, s, from);
    i++;
  }
  if (i < n && !strncmp(w[i], "DETSIM_OPTIONS=", 15)) {
    free(t->options);
    t->options = st_xstrdup(w[i] + 15);
    i++;
  }
  if (i >= n) st_die(ST_EXIT_USAGE, "%s: no command after the seed: %s", from, cmd);
  t->argv = w + i;
  *have_cmd = true;
}

static void take_line(struct sr_target *t, bool *have_seed, bool *have_cmd, const char *line) {
  struct st_outcome o;
  memset(&o, 0, sizeof o);
  uint64_t seed;
  char *cmd = NULL;
  if (st_parse_first_line(line, &seed, &cmd)) {
    set_seed(t, have_seed, seed, "the pasted first line");
    take_command(t, have_seed, cmd, "the pasted first line", have_cmd);
    free(cmd);
    return;
  }
  if (st_parse_result_line(line, &o)) {
    set_seed(t, have_seed, o.seed, "the pasted result line");
    t->expect = true;
    t->cls = o.cls;
    t->history = o.history;
    t->events = o.events;
    t->have_output = o.have_output;
    t->output = o.output;
    t->expect_from = "the pasted result line";
    st_outcome_free(&o);
    return;
  }
  st_die(ST_EXIT_USAGE,
         "not a detsim result line or first line: '%.200s'\n(expected 'detsim: <class> seed=N events=E history=H ...' "
         "or 'detsim: seed=N replay: ...')",
         line);
}

static void take_trace(struct sr_target *t, bool *have_seed, bool *have_cmd, const char *path) {
  char err[600];
  t->trace = st_xcalloc(1, sizeof *t->trace);
  if (st_trace_load(path, t->trace, err, sizeof err) != 0) st_die(ST_EXIT_USAGE, "bad trace file: %s", err);
  if (!t->trace->has_id)
    st_die(ST_EXIT_USAGE,
           "trace file %s has no '# seed=... history=...' header (written by a runtime before the replay header): "
           "replay it with --seed N -- PROGRAM",
           path);
  char *from = st_xasprintf("trace file %s", path);
  set_seed(t, have_seed, t->trace->seed, from);
  t->expect = true;
  t->cls = -1;
  t->history = t->trace->history;
  t->events = t->trace->events;
  t->expect_from = from;
  if (t->trace->replay) take_command(t, have_seed, t->trace->replay, from, have_cmd);
}

/* The options with plan= naming this file (wherever the plan was moved). */
static char *options_with_plan(const char *options, const char *path) {
  static const char *const plan_key[] = { "plan" };
  struct st_buf b = { 0 };
  char *without = sr_options_without(options, plan_key, 1);
  st_buf_printf(&b, "%s%splan=%s", without, without[0] ? ":" : "", path);
  free(without);
  return b.s;
}

static void take_plan(struct sr_target *t, bool *have_seed, bool *have_cmd, const char *path) {
  struct st_plan p;
  char err[600];
  if (st_plan_load(path, &p, err, sizeof err) != 0) st_die(ST_EXIT_USAGE, "bad plan file: %s", err);
  if (strchr(path, ':')) st_die(ST_EXIT_USAGE, "plan file '%s': a path with ':' cannot go into DETSIM_OPTIONS", path);
  char *from = st_xasprintf("plan file %s", path);
  set_seed(t, have_seed, p.seed, from);
  if (p.has_outcome) {
    int cls = st_class_find(p.cls, (int)strlen(p.cls));
    if (cls < 0) st_die(ST_EXIT_USAGE, "%s: unknown class '%s' in its '# class=' line", from, p.cls);
    t->expect = true;
    t->cls = cls;
    t->history = p.history;
    t->events = p.events;
    t->expect_from = from;
  }
  if (p.replay) take_command(t, have_seed, p.replay, from, have_cmd);
  char *with = options_with_plan(t->options, path);
  free(t->options);
  t->options = with;
  t->plan_file = st_xstrdup(path);
  st_plan_free(&p);
}

void sr_check_program(const char *prog) {
  if (st_is_simworld(prog)) return; /* it checks its nodes itself */
  char *path = st_find_program(prog);
  if (!path) st_die(ST_EXIT_HARNESS, "harness error: cannot find program '%s'", prog);
  struct st_elf_info e;
  if (st_elf_inspect(path, &e) != 0) st_die(ST_EXIT_HARNESS, "harness error: cannot read '%s': %s", path, strerror(errno));
  const char *preload = getenv("LD_PRELOAD");
  if (st_elf_plain(&e) && !(preload && strstr(preload, "detsim")))
    st_die(ST_EXIT_HARNESS,
           "harness error: '%s' is not a simulation build: it does not link libdetsim_rt and has no detsim symbols "
           "(build it with detsim-cc)",
           prog);
  free(path);
}

void sr_target_resolve(const struct sr_args *a, struct sr_target *t) {
  memset(t, 0, sizeof *t);
  t->cls = -1;
  t->options = NULL;
  bool have_seed = false, have_cmd = false;
  if (a->have_seed) set_seed(t, &have_seed, a->seed, "--seed");
  for (int i = 0; i < a->ninputs; i++) {
    const char *in = a->inputs[i];
    while (*in == ' ' || *in == '\t' || *in == '\n') in++;
    if (!strncmp(in, "detsim: ", 8)) {
      /* One or more pasted lines. */
      char *copy = st_xstrdup(in);
      for (char *l = copy; *l;) {
        char *nl = strchr(l, '\n');
        if (nl) *nl = '\0';
        while (*l == ' ' || *l == '\t' || *l == '\r') l++;
        size_t n = strlen(l);
        while (n && (l[n - 1] == '\r' || l[n - 1] == ' ')) l[--n] = '\0';
        if (*l) take_line(t, &have_seed, &have_cmd, l);
        if (!nl) break;
        l = nl + 1;
      }
      free(copy);
      continue;
    }
    struct stat st;
    if (stat(in, &st) == 0 && st_scenario_sniff(in)) {
      char *one[] = { (char *)in, NULL };
      t->argv = st_world_argv(one);
      have_cmd = true;
      continue;
    }
    if (stat(in, &st) == 0) {
      if (t->trace || t->plan_file) st_die(ST_EXIT_USAGE, "more than one trace or plan file given ('%s')", in);
      if (st_plan_is_plan_file(in)) take_plan(t, &have_seed, &have_cmd, in);
      else take_trace(t, &have_seed, &have_cmd, in);
      continue;
    }
    st_die(ST_EXIT_USAGE, "'%.200s' is neither a pasted 'detsim:' line nor a file (%s)", in, strerror(errno));
  }
  if (a->argv && a->argv[0]) {
    t->argv = a->argv; /* an explicit command wins over a recorded one */
    have_cmd = true;
  }
  if (a->options) {
    free(t->options);
    t->options = t->plan_file ? options_with_plan(a->options, t->plan_file) : st_xstrdup(a->options);
  }
  if (!t->options) t->options = st_xstrdup("");
  char **world = t->argv ? st_world_argv(t->argv) : NULL;
  if (world) t->argv = world;
  if (!have_seed) st_die(ST_EXIT_USAGE, "no seed: give --seed N, a pasted detsim line or a trace file");
  if (!have_cmd) {
    if (t->expect_from)
      st_die(ST_EXIT_USAGE, "no program: %s carries no command; give it after -- (simreplay ... -- PROGRAM [ARGS...])",
             t->expect_from);
    st_die(ST_EXIT_USAGE, "no program: give it after -- (simreplay --seed N -- PROGRAM [ARGS...])");
  }
}
