/* One run of the target for a shrink: its outcome, and what it printed;
 * what both shrinks say of the first run, and the replay line they print. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "simreplay.h"
#include "st_child.h"
#include "st_classes.h"
#include "st_limits.h"
#include "st_outcome.h"

char *sr_trial_run(const struct sr_target *t, const char *options, double timeout_s, struct sr_trial *out) {
  memset(out, 0, sizeof *out);
  out->cls = -1;
  char seed_text[32];
  snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)t->seed);
  struct st_spawn sp = { .argv = t->argv, .seed = seed_text, .options = options };
  struct st_child c;
  if (st_child_run(&c, &sp, timeout_s) != 0)
    st_die(ST_EXIT_HARNESS, "harness error: cannot execute '%s': %s", t->argv[0], strerror(errno));
  char *text = st_capture_text(&c.err);
  int ws = c.wait_status;
  bool killed = c.killed;
  st_child_free(&c);
  struct st_outcome o;
  st_outcome_parse(text, &o);
  if (!killed && WIFEXITED(ws) && WEXITSTATUS(ws) == ST_RUNTIME_EXIT_USAGE && o.usage && !o.result)
    st_die(ST_EXIT_USAGE, "the runtime of '%s' refused the options: %s\n(DETSIM_OPTIONS=%s)", t->argv[0], o.usage,
           options);
  if (o.result) {
    out->result = true;
    out->cls = o.cls;
    out->events = o.events;
    out->history = o.history;
    out->signature = st_outcome_signature(&o);
  }
  st_outcome_free(&o);
  return text;
}

bool sr_trial_same(const struct sr_trial *r, int cls, const char *signature) {
  return r->result && r->cls == cls && r->signature && !strcmp(r->signature, signature);
}

void sr_trial_free(struct sr_trial *r) {
  free(r->signature);
  r->signature = NULL;
}

int sr_shrink_first_run(const struct sr_target *t, const struct sr_trial *orig) {
  if (!orig->result)
    st_die(ST_EXIT_HARNESS, "harness error: seed %llu of '%s' ended without a result line (killed at the timeout?)",
           (unsigned long long)t->seed, t->argv[0]);
  if (t->expect && (orig->history != t->history || (t->cls >= 0 && orig->cls != t->cls))) {
    printf("simreplay: seed %llu: diverged: the run took %s history=%016llx, not the history of %s (%016llx): "
           "nothing to shrink until it replays (simreplay without --shrink locates the divergence)\n",
           (unsigned long long)t->seed, st_class_name(orig->cls), (unsigned long long)orig->history, t->expect_from,
           (unsigned long long)t->history);
    return st_class_status(ST_CLASS_diverged);
  }
  if (orig->cls == ST_CLASS_pass || orig->cls == ST_CLASS_inconclusive) {
    printf("simreplay: seed %llu: %s: nothing to shrink (--shrink needs a failing run)\n", (unsigned long long)t->seed,
           st_class_name(orig->cls));
    return 1;
  }
  return -1;
}

char *sr_replay_line(const struct sr_target *t, const char *options) {
  struct st_buf cmd = { 0 };
  st_buf_printf(&cmd, "DETSIM_SEED=%llu DETSIM_OPTIONS=", (unsigned long long)t->seed);
  st_shell_quote(&cmd, options);
  st_buf_puts(&cmd, " ");
  st_shell_join(&cmd, t->argv);
  return cmd.s;
}
