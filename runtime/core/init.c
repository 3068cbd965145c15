/* The start and the normal end of a run.
 *
 * The constructor runs before any code of the program (shared-library
 * constructors run before the executable's): it parses DETSIM_SEED and
 * DETSIM_OPTIONS, re-executes the program without address randomization so
 * that pointer values repeat, pins the world to one CPU, writes the first
 * line, and makes the calling thread simulated thread T1.  An on_exit
 * handler registered first runs last and writes the result line.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "time/time.h"
#include "core/core.h"
#include "signal/signal.h"
#include "fuzz/fuzz.h"
#include "trace/trace.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sanitize/sanitize.h"
#include "libc/libc.h"
#include "sched/sched.h"
#include "disk/disk.h"
#include "world/world.h"

void net_close_all(void);
void net_node_crash(unsigned node, bool silent);

/* Set across the re-execution without ASLR, so it happens at most once. */
#define DETSIM_REEXEC_ENV "DETSIM__NO_ASLR_REEXEC"

extern char **environ;
void detsim__watchdog_start(void);

static _Noreturn void usage_error(const char *msg) {
  detsim__msg("error: %s", msg);
  REAL(syscall)(SYS_exit_group, DETSIM_EXIT_USAGE);
  __builtin_unreachable();
}

static void reexec_without_aslr(char **argv) {
  int pers = personality(0xffffffff);
  if (pers == -1 || (pers & ADDR_NO_RANDOMIZE)) {
    unsetenv(DETSIM_REEXEC_ENV);
    return;
  }
  if (getenv(DETSIM_REEXEC_ENV)) {
    /* We did re-execute, and randomization is still on: the system refuses
     * personality(ADDR_NO_RANDOMIZE). Runs still replay unless the program
     * folds pointer values into its behaviour. */
    unsetenv(DETSIM_REEXEC_ENV);
    return;
  }
  if (personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1) return;
  setenv(DETSIM_REEXEC_ENV, "1", 1);
  execve("/proc/self/exe", argv, environ);
  /* exec failed (no /proc?): carry on with randomization */
  unsetenv(DETSIM_REEXEC_ENV);
}

/* Appends `arg` to the line, quoted for a POSIX shell when it needs it. */
static size_t append_shell_word(char *buf, size_t used, size_t cap, const char *arg) {
  bool plain = arg[0] != '\0';
  for (const char *p = arg; *p; p++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%", *p)) plain = false;
  if (used && used < cap - 1) buf[used++] = ' ';
  if (plain) {
    for (const char *p = arg; *p && used < cap - 1; p++) buf[used++] = *p;
  } else {
    if (used < cap - 1) buf[used++] = '\'';
    for (const char *p = arg; *p && used < cap - 5; p++) {
      if (*p == '\'') { memcpy(buf + used, "'\\''", 4); used += 4; }
      else buf[used++] = *p;
    }
    if (used < cap - 1) buf[used++] = '\'';
  }
  buf[used] = '\0';
  return used;
}

static void first_line(uint64_t seed, int argc, char **argv, const char *options) {
  char line[DETSIM_CMDLINE_BYTES_MAX + 256];
  if (detsim__world_hosts() && detsim__ws->replay[0]) {
    /* A node of a launcher's world: its own command line would run it
     * alone, outside the world, which is not this run. */
    int n = snprintf(line, sizeof line, "detsim: seed=%" PRIu64 " replay (needs the world): %.*s\n", seed,
                     DETSIM_WORLD_REPLAY_BYTES, detsim__ws->replay);
    ssize_t r = write(2, line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    (void)r;
    return;
  }
  size_t used = (size_t)snprintf(line, sizeof line, "detsim: seed=%" PRIu64 " replay: DETSIM_SEED=%" PRIu64, seed, seed);
  if (options && options[0]) {
    char opt[DETSIM_CMDLINE_BYTES_MAX];
    snprintf(opt, sizeof opt, "DETSIM_OPTIONS=%s", options);
    used = append_shell_word(line, used, sizeof line - 1, opt);
  }
  for (int i = 0; i < argc && used < sizeof line - 8; i++) used = append_shell_word(line, used, sizeof line - 1, argv[i]);
  line[used++] = '\n';
  ssize_t r = write(2, line, used);
  (void)r;
}

static void exit_handler(int status, void *arg) {
  (void)arg;
  if (!W.running) return;
  if (status == 0) detsim__sanitize_exit_check();
  if (detsim__proc_is_forked() && detsim__self() != NULL) {
    /* A forked child's exit is an event of the world; its parent waits. */
    fflush(NULL);
    detsim__proc_end((status & 0xff) << 8);
    return;
  }
  if (detsim__world_hosts() && status == 0 && detsim__self() != NULL) {
    /* The node leaves the world as the kernel would end it: its
     * connections close; the world goes on (or ends with its last client). */
    fflush(NULL);
    net_close_all();
    /* A socket another thread is still blocked on stays held by that call:
     * the kernel closes it anyway when the process ends. */
    net_node_crash(detsim__node_index, false);
    detsim__write_result(DETSIM_CLASS_pass, 0, NULL);
    detsim__world_node_exit(0);
    return;
  }
  if (detsim__proc_exec_escaped()) {
    /* A process of the run tried to leave the simulation (exec of a
     * binary without the runtime): the run did not run as written, so it
     * is inconclusive whatever its exit status (docs/processes.md). */
    fflush(NULL);
    detsim__finish(DETSIM_CLASS_inconclusive, 0, detsim__proc_exec_escape_extra());
  }
  if (status == 0) {
    fflush(NULL);
    detsim__proc_teardown();
    detsim__write_result(DETSIM_CLASS_pass, 0, NULL);
    if (detsim__opt.trace_always) detsim__finish(DETSIM_CLASS_pass, 0, NULL);
    return;
  }
  detsim__finish(DETSIM_CLASS_exit, status, NULL);
}

static void atfork_child(void) {
  /* The child of a simulated fork took its ids from its parent's fork. */
  if (detsim__proc_atfork_child()) return;
  detsim__sched_forget_in_child();
  detsim__proc_ids_forget(); /* a native child is no process of the world */
}

__attribute__((constructor(101))) static void detsim_init(int argc, char **argv, char **envp) {
  (void)envp;
#ifdef DETSIM_MSAN_RUNTIME
  detsim__msan_init();
#endif
  detsim__sanitize_init();
  char err[512];
  const char *options = getenv("DETSIM_OPTIONS");
  if (detsim__options_parse(options, err, sizeof err) != 0) usage_error(err);
  if (detsim__opt.help) {
    detsim__options_help(1);
    REAL(syscall)(SYS_exit_group, 0);
  }
  uint64_t seed = 0;
  const char *seed_text = getenv("DETSIM_SEED");
  if (seed_text) {
    if (detsim__seed_parse(seed_text, &seed, err, sizeof err) != 0) usage_error(err);
  } else {
    /* A run without a seed draws one, and says it in the first line. */
    if (getrandom(&seed, sizeof seed, 0) != sizeof seed) seed = (uint64_t)REAL(getpid)() * 0x9e3779b97f4a7c15ull;
    seed >>= 1; /* keep it readable: still 63 random bits */
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64, seed);
    setenv("DETSIM_SEED", text, 1);
  }
  if (!detsim__opt.aslr) reexec_without_aslr(argv);
  /* The new image of an exec in a process of the run: it goes on in the
   * old one's slot of the world (proc_exec.c), and writes no first line. */
  bool exec_image = detsim__proc_exec_image();
  const char *world = getenv(DETSIM_WORLD_ENV);
  if (exec_image) {
    detsim__proc_exec_attach();
  } else if (world) {
    if (strcmp(detsim__opt.strategy, "random") != 0) usage_error("DETSIM_OPTIONS=strategy: a world of several nodes runs the random strategy only");
    if (detsim__opt.plan[0] || detsim__opt.plan_out[0]) usage_error("DETSIM_OPTIONS=plan/plan_out: schedule plans are for one-node runs");
    /* The launcher reads the choices file into the world (every node takes
     * its bytes) and gives its nodes no choices= of their own. */
    if (detsim__opt.choices[0]) usage_error("DETSIM_OPTIONS=choices: in a world the launcher reads the choices file (give it to simworld, not to a node)");
    detsim__world_attach(world);
    unsetenv(DETSIM_WORLD_ENV); /* the program's children are not nodes */
  } else {
    /* The run's own region, for the children it may fork. */
    detsim__proc_map_own_region();
  }
  /* Before the program's code: a node that lost power finds its disk as
   * the crash left it. */
  detsim__disk_init(seed);
  /* After the re-execution, so the file is read once. */
  if (detsim__opt.plan[0] && detsim__plan_load(detsim__opt.plan, seed, err, sizeof err) != 0) usage_error(err);
  if (detsim__opt.choices[0] && detsim__opt.plan[0]) usage_error("DETSIM_OPTIONS: choices= and plan= both decide the schedule: give one");
  /* An exec's new image takes the run's bytes from its world's header. */
  if (detsim__opt.choices[0] && !exec_image && detsim__choices_load(detsim__opt.choices, err, sizeof err) != 0)
    usage_error(err);
  detsim__world_choices_attach();
  detsim__fuzz_on = detsim__opt.fuzz_out[0] != '\0';
  if (detsim__opt.pin_cpu) {
    int cpu = detsim__opt.cpu != 0xffffffffull ? (int)detsim__opt.cpu : sched_getcpu();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu >= 0 && cpu < CPU_SETSIZE) {
      CPU_SET(cpu, &set);
      if (sched_setaffinity(0, sizeof set, &set) != 0 && detsim__opt.cpu != 0xffffffffull) {
        snprintf(err, sizeof err, "DETSIM_OPTIONS: cannot pin to cpu=%" PRIu64 ": %s", detsim__opt.cpu, strerror(errno));
        usage_error(err);
      }
    }
    /* One thread of the world runs at a time, and a hand-over wakes the
     * next before the giver waits: the kernel's wake-up preemption would
     * switch to the woken thread and back to the giver, only for it to
     * wait.  Batch scheduling has none; every thread created inherits it.
     * (No privilege needed; where refused, the default stays.) */
    struct sched_param none = { 0 };
    sched_setscheduler(0, SCHED_BATCH, &none);
  }
  if (!detsim__opt.quiet && !exec_image) first_line(seed, argc, argv, options);
  detsim__trace_init(detsim__opt.trace_events);
  struct detsim_rng clock_rng;
  detsim__rng_init(&clock_rng, detsim__seed_child(seed, "clock"));
  detsim__clock_init(detsim__rng_below(&clock_rng, 365ull * 24 * 3600 * 1000000000ull));
  detsim__event_cost_init();
  detsim__report_install();
  on_exit(exit_handler, NULL);
  pthread_atfork(NULL, NULL, atfork_child);
  if (exec_image) detsim__proc_exec_ids();
  else detsim__proc_ids_init();
  detsim__sched_start(seed);
  if (exec_image) detsim__proc_exec_adopt();
  detsim__outside_install();
  detsim__stdio_install();
  detsim__watchdog_start(); /* it also ends runs stopped by a signal from outside */
  detsim__trap_install();   /* last: the filter allows the runtime's text, and all its threads exist */
}
