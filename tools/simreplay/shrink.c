/* --shrink: the fewest scheduling decisions that still fail the same way.
 *
 * 1. Run the seed once, recording its decisions as a schedule plan
 *    (DETSIM_OPTIONS plan_out=, runtime/trace/trace.h): every switch and wake the
 *    plan strategy would not have taken by default.
 * 2. Replay that plan (plan=) and require the same class and signature: a
 *    plan that does not reproduce its own failure means the program has
 *    non-determinism detsim does not control, and shrinking would chase it.
 * 3. Delta debugging (ddmin) over the plan's entries: a subset "keeps the
 *    failure" when its run ends with the same class and the same signature
 *    (class + invariant, or first frame).  Dropping a decision also cuts the
 *    run short when the failure comes sooner.
 * 4. Record the smallest subset's run again, so the written plan holds only
 *    decisions that took effect, write it with a replay line, and replay the
 *    written file once to prove it takes the same history.
 *
 * Nothing here draws randomness: a shrink of the same run is the same
 * shrink, run by run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "simreplay.h"
#include "st_child.h"
#include "st_classes.h"
#include "st_limits.h"
#include "st_plan.h"
#include "st_world.h"

struct shrink {
  const struct sr_target *t;
  const char *base_options; /* the run's options without plan keys */
  double timeout_s;
  uint64_t runs, runs_max;
  int want_cls;
  const char *want_signature;
  char *trial_plan; /* the file a candidate is written to */
  const struct st_plan *plan;
};

/* DETSIM_OPTIONS minus the keys a shrink sets itself. */
static char *options_without_plan(const char *options) {
  static const char *const plan_keys[] = { "plan", "plan_out" };
  char *base = sr_options_for_replay(options);
  char *without = sr_options_without(base, plan_keys, 2);
  free(base);
  return without;
}

static void run_trial(struct shrink *s, const char *plan, const char *plan_out, struct sr_trial *out) {
  struct st_buf opt = { 0 };
  st_buf_puts(&opt, s->base_options);
  /* No trace file per trial: a shrink makes hundreds of failing runs. */
  st_buf_printf(&opt, "%strace=none", opt.len ? ":" : "");
  if (plan) st_buf_printf(&opt, ":plan=%s", plan);
  if (plan_out) st_buf_printf(&opt, ":plan_out=%s", plan_out);
  free(sr_trial_run(s->t, opt.s, s->timeout_s, out));
  s->runs++;
  st_buf_free(&opt);
}

static bool keeps_failure(const struct shrink *s, const struct sr_trial *r) {
  return sr_trial_same(r, s->want_cls, s->want_signature);
}

/* Does the subset keep[] still fail the same way? */
static bool test_subset(struct shrink *s, const bool *keep) {
  if (st_plan_write(s->trial_plan, s->plan, keep, NULL, 0) != 0)
    st_die(ST_EXIT_HARNESS, "harness error: cannot write %s: %s", s->trial_plan, strerror(errno));
  struct sr_trial r;
  run_trial(s, s->trial_plan, NULL, &r);
  bool ok = keeps_failure(s, &r);
  sr_trial_free(&r);
  return ok;
}

static bool plan_keeps(void *ctx, const bool *subset) { return test_subset(ctx, subset); }
static bool plan_may_run(void *ctx) {
  const struct shrink *s = ctx;
  return s->runs < s->runs_max;
}

static struct st_plan load_or_die(const char *path, const char *what) {
  struct st_plan p;
  char err[600];
  if (st_plan_load(path, &p, err, sizeof err) != 0)
    st_die(ST_EXIT_HARNESS, "harness error: the %s the runtime wrote is unreadable: %s", what, err);
  return p;
}

int sr_shrink(const struct sr_args *a, struct sr_target *t) {
  sr_check_program(t->argv[0]);
  /* A world has no plan of decisions: its shrink is over its faults. */
  if (st_is_simworld(t->argv[0])) return sr_shrink_faults(a, t);
  struct shrink s = { .t = t, .timeout_s = a->timeout_s };
  s.runs_max = a->shrink_runs ? a->shrink_runs : SIMREPLAY_SHRINK_RUNS_DEFAULT;
  char *base = options_without_plan(t->options);
  s.base_options = base;
  const char *dir = st_tmpdir();
  if (strchr(dir, ':'))
    st_die(ST_EXIT_USAGE, "the temporary directory '%s' has a ':' (TMPDIR): DETSIM_OPTIONS cannot name it", dir);
  char *recorded = st_xasprintf("%s/recorded.plan", dir);
  char *final_rec = st_xasprintf("%s/final.plan", dir);
  s.trial_plan = st_xasprintf("%s/trial.plan", dir);
  char *out = a->shrink_out ? st_xstrdup(a->shrink_out) : st_xasprintf("detsim-%llu.plan", (unsigned long long)t->seed);
  if (strchr(out, ':')) st_die(ST_EXIT_USAGE, "--out '%s' has a ':': DETSIM_OPTIONS cannot name it", out);

  /* 1. The failing run, recorded. */
  struct sr_trial orig;
  run_trial(&s, NULL, recorded, &orig);
  int early = sr_shrink_first_run(t, &orig);
  if (early >= 0) return early;
  s.want_cls = orig.cls;
  s.want_signature = orig.signature;
  struct st_plan plan = load_or_die(recorded, "recorded plan");
  s.plan = &plan;
  if (!a->quiet)
    printf("simreplay: seed %llu: %s (%s): %zu scheduling decisions, %llu events\n", (unsigned long long)t->seed,
           st_class_name(orig.cls), orig.signature, plan.n, (unsigned long long)orig.events);

  /* 2. The recorded plan must reproduce its failure. */
  struct sr_trial again;
  run_trial(&s, recorded, NULL, &again);
  if (!keeps_failure(&s, &again)) {
    printf("simreplay: seed %llu: diverged: the recorded schedule plan ends %s (%s), not %s (%s): the program "
           "depends on something detsim does not control (see the runtime's warnings on a plain replay)\n",
           (unsigned long long)t->seed, again.result ? st_class_name(again.cls) : "without a result",
           again.signature ? again.signature : "-", st_class_name(orig.cls), orig.signature);
    return st_class_status(ST_CLASS_diverged);
  }
  sr_trial_free(&again);

  /* 3. ddmin. */
  bool *keep = st_xcalloc(plan.n + 1, sizeof *keep);
  for (size_t i = 0; i < plan.n; i++) keep[i] = true;
  static const struct sr_ddmin_ops plan_ops = { plan_keeps, plan_may_run };
  sr_ddmin(plan.n, keep, &plan_ops, &s);
  bool budget_spent = s.runs >= s.runs_max;

  /* 4. Record the smallest subset's run, write it, replay the file. */
  if (st_plan_write(s.trial_plan, &plan, keep, NULL, 0) != 0)
    st_die(ST_EXIT_HARNESS, "harness error: cannot write %s: %s", s.trial_plan, strerror(errno));
  struct sr_trial fin;
  run_trial(&s, s.trial_plan, final_rec, &fin);
  if (!keeps_failure(&s, &fin))
    st_die(ST_EXIT_HARNESS, "harness error: the shrunk plan stopped failing when run again (%s)",
           fin.result ? st_class_name(fin.cls) : "no result line");
  struct st_plan shrunk = load_or_die(final_rec, "shrunk plan");
  char *opts = st_xasprintf("%s%splan=%s", base, base[0] ? ":" : "", out);
  char *replay = sr_replay_line(t, opts);
  free(opts);
  char *c_outcome = st_xasprintf("class=%s events=%llu history=%016llx", st_class_name(fin.cls),
                                 (unsigned long long)fin.events, (unsigned long long)fin.history);
  char *c_sig = st_xasprintf("signature: %s", fin.signature);
  char *c_from = st_xasprintf("shrunk from %zu decisions and %llu events to %zu and %llu, in %llu runs%s",
                              plan.n, (unsigned long long)orig.events, shrunk.n, (unsigned long long)fin.events,
                              (unsigned long long)s.runs, budget_spent ? " (the run budget ran out first)" : "");
  char *c_replay = st_xasprintf("replay: %s", replay);
  const char *comments[] = { c_outcome, c_replay, c_sig, c_from };
  if (st_plan_write(out, &shrunk, NULL, comments, 4) != 0)
    st_die(ST_EXIT_HARNESS, "harness error: cannot write %s: %s", out, strerror(errno));
  struct sr_trial check;
  run_trial(&s, out, NULL, &check);
  bool exact = check.result && check.history == fin.history && check.events == fin.events;
  printf("simreplay: seed %llu: shrunk %s (%s): decisions %zu -> %zu, events %llu -> %llu, %llu runs%s\n",
         (unsigned long long)t->seed, st_class_name(fin.cls), fin.signature, plan.n, shrunk.n,
         (unsigned long long)orig.events, (unsigned long long)fin.events, (unsigned long long)s.runs,
         budget_spent ? " (run budget spent: smaller, maybe not minimal)" : "");
  printf("simreplay: plan written to %s; %s\n", out,
         exact ? "it replays exactly" : "but replaying it took another history");
  printf("simreplay: replay: simreplay %s\n", out);
  sr_trial_free(&orig);
  sr_trial_free(&fin);
  sr_trial_free(&check);
  st_plan_free(&plan);
  st_plan_free(&shrunk);
  free(replay);
  return exact ? 0 : st_class_status(ST_CLASS_diverged);
}
