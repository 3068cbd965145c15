/* One run of a seed for replay: the original run's DETSIM_OPTIONS minus the
 * keys simreplay sets itself, plus trace=<tmp>:trace_always=1 so every run
 * leaves its trace, with a ring large enough for the expected run.  The
 * trace file is read back and deleted. */
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

/* The runtime's default ring (runtime/limits.h DETSIM_TRACE_EVENTS_DEFAULT). */
#define SR_TRACE_EVENTS_DEFAULT (1u << 20)

/* Keys that only say how the run is observed, never what it does: a replay
 * sets them itself (cpu too, which may not exist on this machine). */
static const char *const observer_keys[] = { "trace", "trace_always", "trace_events", "trace_tail", "expect_history",
                                             "break_at", "quiet", "help", "cpu", "plan_out" };

char *sr_options_without(const char *options, const char *const *keys, size_t nkeys) {
  struct st_buf b = { 0 };
  st_buf_puts(&b, "");
  const char *p = options ? options : "";
  while (*p) {
    size_t n = strcspn(p, ":");
    size_t k = strcspn(p, "=:");
    bool drop = false;
    for (size_t i = 0; i < nkeys; i++)
      if (strlen(keys[i]) == k && !strncmp(p, keys[i], k)) drop = true;
    if (!drop && n) {
      if (b.len) st_buf_puts(&b, ":");
      st_buf_add(&b, p, n);
    }
    p += n;
    if (*p == ':') p++;
  }
  return b.s;
}

char *sr_options_for_replay(const char *options) {
  return sr_options_without(options, observer_keys, sizeof observer_keys / sizeof observer_keys[0]);
}

const char *sr_run_text(const struct sr_run *r) {
  static char buf[160];
  if (r->result)
    snprintf(buf, sizeof buf, "%s history=%016llx events=%llu%s", st_class_name(r->cls), (unsigned long long)r->history,
             (unsigned long long)r->events, r->killed ? " (stopped by SIGTERM at the timeout)" : "");
  else if (r->killed)
    snprintf(buf, sizeof buf, "no result: killed at the timeout");
  else
    snprintf(buf, sizeof buf, "no result line (exit status %d)", r->exit_status);
  return buf;
}

void sr_run(char **argv, uint64_t seed, const char *options, uint64_t expect_events, double timeout_s,
            bool want_trace, const uint64_t *unless_history, struct sr_run *r) {
  static int counter;
  memset(r, 0, sizeof *r);
  r->cls = -1;
  char *base = sr_options_for_replay(options);
  struct st_buf opt = { 0 };
  st_buf_puts(&opt, base);
  char *path = NULL;
  if (want_trace) {
    const char *dir = st_tmpdir();
    if (strchr(dir, ':')) st_die(ST_EXIT_USAGE, "the temporary directory '%s' has a ':' (TMPDIR): DETSIM_OPTIONS cannot name it", dir);
    path = st_xasprintf("%s/run-%d.trace", dir, ++counter);
    /* Room for the expected run twice over, so that a longer diverging run
     * still keeps its beginning. */
    uint64_t ring = SR_TRACE_EVENTS_DEFAULT;
    while (ring < 2 * expect_events + 16 && ring < ST_TRACE_EVENTS_MAX) ring <<= 1;
    st_buf_printf(&opt, "%strace=%s:trace_always=1:trace_events=%llu", opt.len ? ":" : "", path,
                  (unsigned long long)ring);
    if (unless_history) st_buf_printf(&opt, ":expect_history=%016llx", (unsigned long long)*unless_history);
  }
  char seed_text[32];
  snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)seed);
  struct st_spawn s = { .argv = argv, .seed = seed_text, .options = opt.s };
  struct st_child c;
  if (st_child_run(&c, &s, timeout_s) != 0)
    st_die(ST_EXIT_HARNESS, "harness error: cannot execute '%s': %s", argv[0], strerror(errno));
  r->stderr_text = st_capture_text(&c.err);
  r->killed = c.killed;
  int ws = c.wait_status;
  r->exit_status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : -1;
  st_child_free(&c);
  struct st_outcome o;
  st_outcome_parse(r->stderr_text, &o);
  if (!r->killed && WIFEXITED(ws) && WEXITSTATUS(ws) == ST_RUNTIME_EXIT_USAGE && o.usage && !o.result)
    st_die(ST_EXIT_USAGE, "the runtime of '%s' refused the options: %s\n(DETSIM_OPTIONS=%s)", argv[0], o.usage, opt.s);
  if (!o.first_line && !o.result)
    st_die(ST_EXIT_HARNESS,
           "harness error: '%s' (seed %llu) printed no 'detsim: seed=' first line%s: it is not a simulation build "
           "(build it with detsim-cc)",
           argv[0], (unsigned long long)seed, r->killed ? " before the timeout" : "");
  if (o.result) {
    if (o.seed != seed)
      st_die(ST_EXIT_HARNESS, "harness error: '%s' was given seed %llu but its result line names seed %llu", argv[0],
             (unsigned long long)seed, (unsigned long long)o.seed);
    r->result = true;
    r->cls = o.cls;
    r->history = o.history;
    r->events = o.events;
    r->have_output = o.have_output;
    r->output = o.output;
  }
  st_outcome_free(&o);
  if (path) {
    if (r->result && unless_history && r->history == *unless_history) {
      snprintf(r->trace_err, sizeof r->trace_err, "the run took the expected history, so it wrote no trace");
    } else if (r->result) {
      if (st_trace_load(path, &r->trace, r->trace_err, sizeof r->trace_err) == 0) r->have_trace = true;
    } else {
      snprintf(r->trace_err, sizeof r->trace_err, "the run wrote no trace (it ended without a result line)");
    }
    unlink(path);
    free(path);
  }
  free(base);
  st_buf_free(&opt);
}

void sr_run_free(struct sr_run *r) {
  free(r->stderr_text);
  if (r->have_trace) st_trace_free(&r->trace);
  memset(r, 0, sizeof *r);
}
