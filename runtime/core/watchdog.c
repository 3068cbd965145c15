/* The real-time watchdog.
 *
 * A run whose event count stops moving for watchdog_s real seconds is stuck
 * outside the simulation: in an unsimulated blocking call, or in a spin loop
 * over plain memory (a data race) with no yield point.  The watchdog, a real
 * thread outside the simulation, asks the stuck thread for its backtrace
 * with a signal, prints it, and ends the run as inconclusive.
 *
 * It also ends a run that a real signal from outside stopped, when the
 * thread holding the baton cannot (signal/signal.h): it waits on that
 * signal's word between its looks, so it starts even with watchdog_s=0.
 */
#include <inttypes.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "signal/signal.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sanitize/sanitize.h"
#include "sched/sched.h"
#include "trace/trace.h"
#include "world/world.h"

#define WATCHDOG_POLL_MS 100
/* How long the stuck thread gets to answer with its backtrace. */
#define WATCHDOG_ANSWER_MS 2000

static char stuck_where[4096];
static int stuck_answered;

static void backtrace_request(int sig) {
  (void)sig;
  detsim__backtrace_text(stuck_where, sizeof stuck_where, 1);
  __atomic_store_n(&stuck_answered, 1, __ATOMIC_RELEASE);
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  REAL(nanosleep)(&ts, NULL);
}

static uint64_t real_ms(void) {
  struct timespec ts;
  /* The system call, not the vDSO: with trap_tsc the vDSO's rdtsc would
   * fault and take the slow path through the SIGSEGV handler. */
  REAL(syscall)(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Sleeps WATCHDOG_POLL_MS, or until a signal from outside comes. */
static void poll_wait(void) {
  struct timespec ts = { 0, WATCHDOG_POLL_MS * 1000000L };
  if (__atomic_load_n(&detsim__outside_sig, __ATOMIC_ACQUIRE) == 0)
    REAL(syscall)(SYS_futex, &detsim__outside_sig, FUTEX_WAIT, 0, &ts, NULL, 0);
}

static void *watchdog_main(void *arg);
static struct detsim_helper watchdog = {
  .name = "watchdog", .main = watchdog_main, .stack_bytes = 256u << 10, .wake = &detsim__outside_sig,
};

static void *watchdog_main(void *arg) {
  (void)arg;
  uint64_t last = detsim__events();
  uint64_t since = real_ms();
  const uint64_t limit_ms = detsim__opt.watchdog_s * 1000;
  /* The stuck-thread watch is off with watchdog_s=0 and under break_at
   * (real time passes in the debugger). */
  const bool watch_stuck = detsim__opt.watchdog_s != 0 && !detsim__opt.break_at;
  for (;;) {
    poll_wait();
    if (detsim__helper_quit(&watchdog)) return NULL; /* a fork under TSan (sanitize.h) */
    detsim__outside_watch();
    /* Nothing of a run outlives it, even when its first process was
     * killed from outside. */
    if (detsim__proc_world_gone()) REAL(syscall)(SYS_exit_group, 128 + SIGKILL);
    uint64_t now = detsim__events();
    if (detsim__in_world && __atomic_load_n(&detsim__ws->current, __ATOMIC_ACQUIRE) != detsim__node_index) {
      /* The world runs elsewhere: only the node holding it can be stuck.
       * In a run's own world the first process notices when the process
       * holding it died outside the simulation (killed from outside). */
      int dead = detsim__proc_holder_died();
      if (dead >= 0) {
        char extra[96];
        snprintf(extra, sizeof extra, "reason=process-died-outside pid=%d", dead);
        detsim__msg("process %d of the world died outside the simulation (killed from outside?) while it held "
                    "the world: the run cannot go on", dead);
        detsim__report_no_flush();
        detsim__finish(DETSIM_CLASS_inconclusive, 0, extra);
      }
      since = real_ms();
      continue;
    }
    if (!watch_stuck) continue;
    if (now != last) {
      last = now;
      since = real_ms();
      continue;
    }
    if (real_ms() - since < limit_ms) continue;
    detsim_thread *stuck = __atomic_load_n(&W.current, __ATOMIC_ACQUIRE);
    detsim__msg("watchdog: no event for %" PRIu64 " s of real time (DETSIM_OPTIONS=watchdog_s=%" PRIu64
                "): thread T%u is stuck outside the simulation (an unsimulated blocking call, or a spin "
                "loop on plain memory)",
                detsim__opt.watchdog_s, detsim__opt.watchdog_s, stuck ? stuck->id : 0);
    if (stuck) {
      REAL(pthread_kill)(stuck->pthread, SIGRTMAX - 3);
      for (unsigned waited = 0; waited < WATCHDOG_ANSWER_MS && !__atomic_load_n(&stuck_answered, __ATOMIC_ACQUIRE);
           waited += 10)
        sleep_ms(10);
      if (__atomic_load_n(&stuck_answered, __ATOMIC_ACQUIRE)) {
        detsim__msg("  thread T%u is at:", stuck->id);
        char *line = stuck_where;
        while (*line) {
          char *nl = strchr(line, '\n');
          if (nl) *nl = '\0';
          detsim__msg("    %s", line);
          if (!nl) break;
          line = nl + 1;
        }
      }
    }
    /* The stuck thread may hold a stdio lock: don't flush. */
    detsim__report_no_flush();
    detsim__finish(DETSIM_CLASS_inconclusive, 0, "reason=watchdog");
  }
  return NULL;
}

void detsim__watchdog_start(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = backtrace_request;
  sa.sa_flags = SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  REAL(sigaction)(SIGRTMAX - 3, &sa, NULL);
  if (detsim__helper_start(&watchdog) != 0) detsim__msg("warning: cannot start the watchdog; a stuck run will hang");
}
