/* One run of the target for a shrink: its outcome, and what it printed. */
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
