/* --shrink of a world: the fewest of its faults that still fail the same way.
 *
 * A world's schedule is drawn from its seed, node by node, so there is no
 * plan of decisions to shrink; what a user wants to know is which faults
 * the failure needs.  The seed draws its faults (`detsim: fault groups=N`);
 * DETSIM_OPTIONS fault_drop=MASK leaves some out (runtime/world/world_faults.c).
 * Delta debugging over the groups keeps a subset when the run still ends
 * with the same class and signature; the result is a replay line with
 * fault_drop, checked to take the same history once more.
 *
 * Nothing here draws randomness: a shrink of the same run is the same
 * shrink.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simreplay.h"
#include "st_classes.h"
#include "st_limits.h"
#include "st_outcome.h"

/* fault_drop is a 64-bit mask: faults past the 64th stay in. */
#define GROUPS_MAX 64

struct fault_trial {
  struct sr_trial r;
  unsigned groups; /* the faults the seed drew, as simworld says */
};

struct fault_shrink {
  const struct sr_target *t;
  char *base_options;
  double timeout_s;
  uint64_t runs, runs_max;
  int want_cls;
  const char *want_signature;
};

static void run_with_drop(struct fault_shrink *s, uint64_t drop, struct fault_trial *out) {
  struct st_buf opt = { 0 };
  st_buf_puts(&opt, s->base_options);
  st_buf_printf(&opt, "%strace=none:fault_drop=%" PRIu64, opt.len ? ":" : "", drop);
  char *text = sr_trial_run(s->t, opt.s, s->timeout_s, &out->r);
  s->runs++;
  const char *g = strstr(text, "\ndetsim: fault groups=");
  out->groups = g ? (unsigned)strtoul(g + 22, NULL, 10) : 0;
  free(text);
  st_buf_free(&opt);
}

static bool same_failure(const struct fault_shrink *s, const struct fault_trial *r) {
  return sr_trial_same(&r->r, s->want_cls, s->want_signature);
}

struct fault_subset {
  struct fault_shrink *s;
  unsigned groups;
};

/* Does keeping only the faults in `subset` still fail the same way? */
static bool faults_keep(void *ctx, const bool *subset) {
  struct fault_subset *f = ctx;
  uint64_t drop = 0;
  for (unsigned g = 0; g < f->groups; g++)
    if (!subset[g]) drop |= 1ull << g;
  struct fault_trial r;
  run_with_drop(f->s, drop, &r);
  bool ok = same_failure(f->s, &r);
  sr_trial_free(&r.r);
  return ok;
}

static bool faults_may_run(void *ctx) {
  const struct fault_subset *f = ctx;
  return f->s->runs < f->s->runs_max;
}

int sr_shrink_faults(const struct sr_args *a, struct sr_target *t) {
  static const char *const own_keys[] = { "fault_drop", "plan", "plan_out" };
  struct fault_shrink s = { .t = t, .timeout_s = a->timeout_s };
  s.runs_max = a->shrink_runs ? a->shrink_runs : SIMREPLAY_SHRINK_RUNS_DEFAULT;
  char *base = sr_options_for_replay(t->options);
  s.base_options = sr_options_without(base, own_keys, sizeof own_keys / sizeof own_keys[0]);
  free(base);

  struct fault_trial orig;
  run_with_drop(&s, 0, &orig);
  int early = sr_shrink_first_run(t, &orig.r);
  if (early >= 0) return early;
  s.want_cls = orig.r.cls;
  s.want_signature = orig.r.signature;
  unsigned groups = orig.groups < GROUPS_MAX ? orig.groups : GROUPS_MAX;
  if (!a->quiet)
    printf("simreplay: seed %" PRIu64 ": %s (%s): a world with %u drawn faults, %" PRIu64 " events\n", t->seed,
           st_class_name(orig.r.cls), orig.r.signature, orig.groups, orig.r.events);
  bool kept_group[GROUPS_MAX];
  for (unsigned g = 0; g < GROUPS_MAX; g++) kept_group[g] = g < groups;
  struct fault_subset sub = { &s, groups };
  static const struct sr_ddmin_ops fault_ops = { faults_keep, faults_may_run };
  sr_ddmin(groups, kept_group, &fault_ops, &sub);
  uint64_t keep = 0;
  for (unsigned g = 0; g < groups; g++)
    if (kept_group[g]) keep |= 1ull << g;
  bool budget_spent = s.runs >= s.runs_max;
  uint64_t all = groups >= 64 ? ~0ull : (1ull << groups) - 1;
  uint64_t drop = all & ~keep;
  struct fault_trial fin, check;
  run_with_drop(&s, drop, &fin);
  if (!same_failure(&s, &fin))
    st_die(ST_EXIT_HARNESS, "harness error: the shrunk fault set stopped failing when run again (%s)",
           fin.r.result ? st_class_name(fin.r.cls) : "no result line");
  run_with_drop(&s, drop, &check);
  bool exact = check.r.result && check.r.history == fin.r.history && check.r.events == fin.r.events;
  unsigned kept = (unsigned)__builtin_popcountll(keep);
  printf("simreplay: seed %" PRIu64 ": shrunk %s (%s): faults %u -> %u, events %" PRIu64 " -> %" PRIu64 ", %" PRIu64
         " runs%s\n", t->seed, st_class_name(fin.r.cls), fin.r.signature, orig.groups, kept, orig.r.events, fin.r.events, s.runs,
         budget_spent ? " (run budget spent: smaller, maybe not minimal)" : "");
  if (kept == 0) printf("simreplay: the failure needs none of the faults: the schedule alone finds it\n");
  char *opts = st_xasprintf("%s%sfault_drop=%" PRIu64, s.base_options, s.base_options[0] ? ":" : "", drop);
  char *replay = sr_replay_line(t, opts);
  printf("simreplay: %s; replay: %s\n", exact ? "it replays exactly" : "but running it again took another history",
         replay);
  sr_trial_free(&orig.r);
  sr_trial_free(&fin.r);
  sr_trial_free(&check.r);
  free(opts);
  free(replay);
  return exact ? 0 : st_class_status(ST_CLASS_diverged);
}
