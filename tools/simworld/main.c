/* simworld: one seed of a scenario (simworld.h).
 *
 * Exit status: the world's class, as a simulation build's (0 pass, 80 exit,
 * 81 correctness, 82 crash, 83 deadlock, 86 inconclusive ...); 89 for a bad
 * seed, DETSIM_OPTIONS or scenario; 3 when a node cannot be run.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "simworld.h"
#include "st_classes.h"
#include "st_elf.h"
#include "st_options.h"
#include "st_util.h"
#include "st_world.h"

#define SW_EXIT_USAGE ST_RUNTIME_EXIT_USAGE
#define NODE_TAIL_LINES 30

static const char usage[] =
    "usage: simworld [--logs DIR] [--level N] SCENARIO-FILE\n"
    "  Runs one seed of a scenario: every node a process of a simulation build,\n"
    "  all in one simulated world (scheduler, clock, network).  DETSIM_SEED picks\n"
    "  the seed (drawn when unset); DETSIM_OPTIONS goes to every node after the\n"
    "  scenario's own `option` lines (but choices=FILE, choice mode, which simworld\n"
    "  reads itself: every node takes the file's bytes; docs/fuzzing.md).  The last\n"
    "  stderr line is the world's result:\n"
    "    detsim: <class> seed=<seed> events=<n> history=<hex> ...\n"
    "  --logs DIR  keep each node's stdout and stderr in DIR/<node>.out/.err\n"
    "              (default: a temporary directory, kept only when the run fails)\n"
    "  --level N   1|2|3 or sunny|stormy|radioactive, over the scenario's own\n"
    "              (DETSIM_OPTIONS level= still wins)\n"
    "  Exit status: the class's (0 pass, 80 exit, 81 correctness, 82 crash,\n"
    "  83 deadlock, 86 inconclusive), 89 bad input, 3 a node cannot be run.\n";

static uint64_t seed_from_env(void) {
  const char *text = getenv("DETSIM_SEED");
  uint64_t seed;
  if (text == NULL) {
    if (getrandom(&seed, sizeof seed, 0) != sizeof seed) seed = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
    return seed >> 1;
  }
  if (!st_parse_u64(text, &seed)) st_die(SW_EXIT_USAGE, "DETSIM_SEED=%s: not a decimal number in 0..2^64-1", text);
  return seed;
}

/* The scenario's options, then the caller's (later keys win). */
static char *merged_options(const struct st_scenario *sc) {
  struct st_buf b = { 0 };
  if (sc->level > 0) st_buf_printf(&b, "level=%d", sc->level);
  for (unsigned i = 0; i < sc->n_options; i++) {
    if (b.len) st_buf_puts(&b, ":");
    st_buf_puts(&b, sc->options[i]);
  }
  const char *user = getenv("DETSIM_OPTIONS");
  if (user && user[0]) {
    if (b.len) st_buf_puts(&b, ":");
    st_buf_puts(&b, user);
  }
  if (b.s == NULL) st_buf_puts(&b, "");
  return b.s;
}

/* Where the nodes write their trace parts (as runtime/core/report.c names the
 * trace), NULL for trace=none. */
static char *trace_path(const char *options, uint64_t seed) {
  char *v = st_options_value(options, "trace");
  if (v && !strcmp(v, "none")) {
    free(v);
    return NULL;
  }
  if (v && v[0]) return v;
  free(v);
  return st_xasprintf("detsim-%" PRIu64 ".trace", seed);
}

/* The command that runs this seed again, as the first line and the trace
 * give it (malloc'd). */
static char *replay_command(uint64_t seed, const char *scenario) {
  struct st_buf b = { 0 };
  st_buf_printf(&b, "DETSIM_SEED=%" PRIu64, seed);
  const char *user = getenv("DETSIM_OPTIONS");
  if (user && user[0]) {
    char *o = st_xasprintf("DETSIM_OPTIONS=%s", user);
    st_buf_puts(&b, " ");
    st_shell_quote(&b, o);
    free(o);
  }
  st_buf_puts(&b, " simworld ");
  st_shell_quote(&b, scenario);
  return b.s;
}

static int pin_to_current_cpu(void) {
  int cpu = sched_getcpu();
  if (cpu < 0) return -1;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set);
}

/* A real SIGTERM, SIGINT, SIGHUP, SIGQUIT or SIGALRM to the launcher (a
 * CI's timeout, simrun --timeout, Ctrl-C): the world ends with a result
 * line naming it, as a node's runtime ends a run of one program.  Calls
 * are interrupted (no SA_RESTART), so the supervisor sees it at once. */
static void on_outside_signal(int sig) {
  if (sw_signal_received == 0) sw_signal_received = sig;
}

static void catch_outside_signals(void) {
  static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGALRM };
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_outside_signal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
}

static void remove_logs(const struct sw_run *r) {
  for (unsigned i = 0; i < r->sc->n_nodes; i++) {
    char *out = st_xasprintf("%s/%s.out", r->log_dir, r->sc->nodes[i].name);
    char *err = st_xasprintf("%s/%s.err", r->log_dir, r->sc->nodes[i].name);
    unlink(out);
    unlink(err);
    free(out);
    free(err);
  }
  rmdir(r->log_dir);
}

/* The faults of a level-2 world by kind (simrun counts them), then each
 * skewed node's clock, so a reader can tell what its clocks said. */
/* The coverage points of every node, reached or not, in the form of a
 * one-node run's lines (runtime/core/points.c), so simrun counts them. */
static void print_points(const struct detsim_world_shared *w) {
  static const char *const kinds[] = { NULL, "sometimes", "reachable", "unreachable" };
  for (unsigned i = 0; i < w->n_points && i < DETSIM_WORLD_POINTS_MAX; i++) {
    const struct detsim_world_point *p = &w->points[i];
    if (p->kind < 1 || p->kind > 3) continue;
    char name[DETSIM_WORLD_POINT_NAME_BYTES];
    snprintf(name, sizeof name, "%s", p->name);
    if (p->kind == 1)
      fprintf(stderr, "detsim: point %s=%llu/%llu %s\n", kinds[p->kind], (unsigned long long)p->hits,
              (unsigned long long)p->evals, name);
    else
      fprintf(stderr, "detsim: point %s=%llu %s\n", kinds[p->kind], (unsigned long long)p->hits, name);
  }
  if (w->points_dropped)
    fprintf(stderr, "detsim: warning: %u coverage points past DETSIM_WORLD_POINTS_MAX (%d) are not reported\n",
            w->points_dropped, DETSIM_WORLD_POINTS_MAX);
}

static void print_faults(const struct detsim_world_shared *w) {
  static const char *const kinds[DETSIM_FAULT_KINDS] = {
    NULL,
#define DETSIM_FAULT(NAME, name, lifecycle, desc) #name,
#include "../../runtime/fault_kinds.inc"
#undef DETSIM_FAULT
  };
  struct st_buf line = { 0 };
  st_buf_printf(&line, "detsim: faults level=%u", w->level);
  for (unsigned k = 1; k < DETSIM_FAULT_KINDS; k++)
    if (w->fault_counts[k]) st_buf_printf(&line, " %s=%llu", kinds[k], (unsigned long long)w->fault_counts[k]);
  fprintf(stderr, "%s\n", line.s);
  st_buf_free(&line);
  for (unsigned i = 0; i < w->n_nodes && i < DETSIM_WORLD_NODES_MAX; i++) {
    const struct detsim_node_clock *c = &w->nodes[i].clock;
    if (c->realtime_offset_ns == 0 && c->drift_ppb == 0) continue;
    fprintf(stderr, "detsim: skew node=%.*s realtime_offset_ns=%" PRId64 " drift_ppb=%" PRId64 "\n",
            DETSIM_WORLD_NAME_BYTES, w->nodes[i].name, c->realtime_offset_ns, c->drift_ppb);
  }
  for (unsigned i = 0; i < w->next_fault && i < DETSIM_WORLD_FAULTS_MAX; i++) {
    const struct detsim_world_fault *f = &w->faults[i];
    if (f->kind != DETSIM_FAULT_STEP || f->node >= w->n_nodes) continue;
    fprintf(stderr, "detsim: step node=%.*s at_ns=%" PRIu64 " delta_ns=%" PRId64 "\n", DETSIM_WORLD_NAME_BYTES,
            w->nodes[f->node].name, f->at, (int64_t)f->arg);
  }
  if (w->n_groups)
    fprintf(stderr, "detsim: fault groups=%u dropped=%u\n", w->n_groups, w->groups_dropped);
  if (w->fault_counts[DETSIM_FAULT_UDP])
    fprintf(stderr, "detsim: udp lost=%llu duplicated=%llu reordered=%llu\n", (unsigned long long)w->udp_lost,
            (unsigned long long)w->udp_duplicated, (unsigned long long)w->udp_reordered);
  if (w->fault_counts[DETSIM_FAULT_SHORT])
    fprintf(stderr, "detsim: short reads=%llu writes=%llu\n", (unsigned long long)w->short_reads,
            (unsigned long long)w->short_writes);
}

int main(int argc, char **argv) {
  st_prog = "simworld";
  const char *logs = NULL, *path = NULL;
  int level = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(argv[i], "--logs") && i + 1 < argc) {
      logs = argv[++i];
    } else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
      const char *v = argv[++i];
      static const char *const names[] = { "sunny", "stormy", "radioactive" };
      level = 0;
      for (int k = 0; k < 3; k++)
        if (!strcmp(v, names[k]) || (v[0] == '1' + k && v[1] == '\0')) level = k + 1;
      if (level == 0) st_die(SW_EXIT_USAGE, "--level %s: want 1, 2, 3, sunny, stormy or radioactive", v);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      st_die(SW_EXIT_USAGE, "unknown option %s (see --help)", argv[i]);
    } else if (path == NULL) {
      path = argv[i];
    } else {
      st_die(SW_EXIT_USAGE, "one scenario file at a time (got %s and %s)", path, argv[i]);
    }
  }
  if (path == NULL) {
    fputs(usage, stderr);
    return SW_EXIT_USAGE;
  }
  uint64_t seed = seed_from_env();
  static struct st_scenario sc;
  char err[1024];
  if (st_scenario_load(path, &sc, err, sizeof err) != 0) st_die(SW_EXIT_USAGE, "%s", err);
  if (level) sc.level = level;
  st_world_check_programs(&sc);

  static struct sw_run r;
  r.sc = &sc;
  r.seed = seed;
  r.options = merged_options(&sc);
  r.outside_death = -1;
  /* Fuzz mode (fuzz.c): the choices file is the launcher's to read (the
   * world's header holds its bytes), and the nodes write coverage parts. */
  char *choices = st_options_value(r.options, "choices");
  char *fuzz_out = st_options_value(r.options, "fuzz_out");
  if (choices && !choices[0]) choices = NULL;
  if (fuzz_out && !fuzz_out[0]) fuzz_out = NULL;
  if (choices && st_options_have(r.options, "plan"))
    st_die(SW_EXIT_USAGE, "DETSIM_OPTIONS: choices= and plan= both decide the schedule: give one");
  struct sw_choices *choice_bytes = choices ? sw_choices_read(choices) : NULL;
  r.fuzz = fuzz_out != NULL;
  if (logs) {
    if (mkdir(logs, 0755) != 0 && errno != EEXIST) st_die(ST_EXIT_HARNESS, "--logs %s: %s", logs, strerror(errno));
    r.log_dir = st_xstrdup(logs);
  } else {
    r.log_dir = st_xasprintf("%s/simworld-%" PRIu64 "-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", seed);
    if (mkdtemp(r.log_dir) == NULL) st_die(ST_EXIT_HARNESS, "cannot make a log directory: %s", strerror(errno));
  }
  /* The processes forked on a node whose parent ends come to the launcher,
   * which kills and reaps them with their node, whatever happened. */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  /* One CPU for the whole world: hand-overs between processes stay cheap. */
  pin_to_current_cpu();
  char *replay = replay_command(seed, path);
  fprintf(stderr, "detsim: seed=%" PRIu64 " replay: %s\n", seed, replay);
  sw_disks_create(&r);
  /* Each node runs in a directory of its own: a relative trace or
   * coverage path is the launcher's, made absolute for the nodes (the
   * merges read them here). */
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == NULL) cwd[0] = '\0';
  char *node_options = choices ? st_options_without(r.options, "choices") : st_xstrdup(r.options);
  char *node_trace = trace_path(r.options, seed);
  if (node_trace && node_trace[0] != '/' && cwd[0]) {
    char *o = st_xasprintf("%s%strace=%s/%s", node_options, node_options[0] ? ":" : "", cwd, node_trace);
    free(node_options);
    node_options = o;
  }
  free(node_trace);
  if (fuzz_out && fuzz_out[0] != '/' && cwd[0]) {
    char *o = st_xasprintf("%s%sfuzz_out=%s/%s", node_options, node_options[0] ? ":" : "", cwd, fuzz_out);
    free(node_options);
    node_options = o;
  }
  r.node_options = node_options;
  r.world = sw_world_create(&sc, seed, &r.fd);
  if (choice_bytes) sw_choices_load(choice_bytes, r.world);
  free(choice_bytes);
  /* The nodes' own first lines name the world's replay (they run in
   * directories of their own: the scenario's path absolute). */
  char scenario_abs[PATH_MAX];
  char *node_replay = replay_command(seed, realpath(path, scenario_abs) ? scenario_abs : path);
  snprintf(r.world->replay, sizeof r.world->replay, "%s", node_replay);
  free(node_replay);
  catch_outside_signals();
  sw_start_all(&r);
  int outside = sw_supervise(&r);
  bool traced = st_options_true(r.options, "trace_always");
  /* Every node flushes its stdio when asked for its last events after a
   * signal from outside (runtime/world.c). */
  if (outside < 0 || r.world->end_class != ST_CLASS_pass || traced || r.fuzz) sw_dump_all(&r);
  sw_kill_all(&r);
  if (fuzz_out) sw_fuzz_merge(&r, fuzz_out);

  struct detsim_world_shared *w = r.world;
  int cls;
  struct st_buf extra = { 0 };
  st_buf_puts(&extra, "");
  if (outside == SW_OUTSIDE_SIGNAL) {
    cls = ST_CLASS_inconclusive;
    int sig = (int)w->outside_signal;
    const char *abbrev = sigabbrev_np(sig);
    int32_t node = sw_host_of(w, w->outside_node);
    fprintf(stderr, "detsim: SIG%s from outside the simulation (to %s%s) ends the world\n", abbrev ? abbrev : "?",
            node >= 0 ? "node " : "simworld", node >= 0 && (unsigned)node < sc.n_nodes ? sc.nodes[node].name : "");
    st_buf_printf(&extra, " reason=signal signal=SIG%s", abbrev ? abbrev : "?");
    if (node >= 0 && (unsigned)node < sc.n_nodes) st_buf_printf(&extra, " node=%s", sc.nodes[node].name);
  } else if (outside < 0) {
    cls = ST_CLASS_crash;
    unsigned i = (unsigned)r.outside_death;
    int st = r.outside_status;
    if (r.outside_vpid)
      fprintf(stderr, "detsim: process %d (forked on node %s) died outside the simulation while it held the world\n",
              (int)r.outside_vpid, sc.nodes[i].name);
    else
      fprintf(stderr, "detsim: node %s died outside the simulation (%s %d)\n", sc.nodes[i].name,
              WIFSIGNALED(st) ? "signal" : "exit status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    sw_print_node_tail(&r, i, NODE_TAIL_LINES);
    st_buf_printf(&extra, " node=%s", sc.nodes[i].name);
  } else {
    cls = w->end_class;
    /* A process forked on a node writes to its node's log. */
    int32_t end = sw_host_of(w, w->end_node);
    if (end >= 0 && cls != ST_CLASS_pass) sw_print_node_tail(&r, (unsigned)end, NODE_TAIL_LINES);
    if (cls == ST_CLASS_deadlock) sw_print_blocked(&r);
    if (cls == ST_CLASS_exit) st_buf_printf(&extra, " exit_status=%d", w->end_status);
    if (w->end_extra[0]) st_buf_printf(&extra, " %s", w->end_extra);
  }
  /* A node the scenario held until another listened, and never released. */
  for (unsigned i = 0; i < sc.n_nodes; i++)
    if (w->nodes[i].after1)
      fprintf(stderr, "simworld: node %s never started: it starts after %s listens, and %s never listened\n",
              sc.nodes[i].name, sc.nodes[w->nodes[i].after1 - 1].name, sc.nodes[w->nodes[i].after1 - 1].name);
  bool failed = cls != ST_CLASS_pass;
  sw_forward_warnings(&r);
  /* The world's trace, as one program's: on a failure or with
   * trace_always, unless the run took the history it was expected to. */
  char *trace_base = trace_path(r.options, seed);
  char *expect = st_options_value(r.options, "expect_history");
  bool as_expected = outside >= 0 && expect && expect[0] && strtoull(expect, NULL, 16) == w->end_history;
  char *trace = trace_base && (failed || traced) && !as_expected ? sw_trace_merge(&r, trace_base, replay) : NULL;
  if (trace_base) sw_trace_parts_remove(&r, trace_base);
  if (trace) st_buf_printf(&extra, " trace=%s", trace);
  /* The nodes' disks go with a passing run; a failing one keeps them
   * beside its logs (simrun keeps a bounded number of those). */
  if (!failed) sw_disks_remove(&r);
  if (failed || logs) st_buf_printf(&extra, " logs=%s", r.log_dir);
  else remove_logs(&r);
  if (w->n_checks > 0) {
    /* The same form as a one-node run's line, so simrun counts them. */
    struct st_buf line = { 0 };
    st_buf_puts(&line, "detsim: checked");
    for (unsigned i = 0; i < w->n_checks && i < DETSIM_WORLD_CHECKS_MAX; i++) {
      char name[DETSIM_WORLD_CHECK_NAME_BYTES];
      snprintf(name, sizeof name, "%s", w->checks[i].name);
      for (char *p = name; *p; p++)
        if (*p == ' ' || *p == '=' || *p == '\t' || *p == '\n') *p = '_';
      st_buf_printf(&line, " %s=%llu", name, (unsigned long long)w->checks[i].passed);
    }
    fprintf(stderr, "%s\n", line.s);
    st_buf_free(&line);
  }
  print_points(w);
  if (w->level >= 2) print_faults(w);
  uint64_t events = outside < 0 ? w->events : w->end_events;
  uint64_t now = outside < 0 ? w->now_ns : w->end_now_ns;
  uint64_t history = outside == SW_OUTSIDE_SIGNAL ? w->hash : outside < 0 ? (uint64_t)0 : w->end_history;
  /* As a program's line says it: the bytes of the choices file taken. */
  char used[64] = "";
  if (w->choices_on)
    snprintf(used, sizeof used, " choices_used=%" PRIu64 "/%" PRIu64, w->choices_pos, w->choices_len);
  fprintf(stderr, "detsim: %s seed=%" PRIu64 " events=%" PRIu64 " history=%016" PRIx64 " sim_time=%" PRIu64
                  ".%06" PRIu64 "s nodes=%u%s%s\n",
          st_class_name(cls), seed, events, history, now / UINT64_C(1000000000),
          (now % UINT64_C(1000000000)) / UINT64_C(1000), sc.n_nodes, used, extra.s);
  return st_class_status(cls);
}
