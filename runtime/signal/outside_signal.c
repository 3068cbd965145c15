/* Real signals from outside the simulation (signal/signal.h).
 *
 * Rules of this file:
 *  - The handler is async-signal-safe: it records the signal (the first
 *    one wins), makes the baton holder's next event take the slow path
 *    (W.event_stop = 0, which event_limits in sched.c reads), and wakes
 *    the watchdog thread through a futex.  Nothing else.
 *  - The run ends at the holder's next event when it comes soon: there
 *    stdio is flushed as at an exit.  A holder stuck in the kernel (a real
 *    blocking call) gets OUTSIDE_GRACE_MS; then the watchdog ends the run,
 *    flushing stdout and stderr only where no thread holds their locks.
 *  - In a world only the launcher ends the world for a node that does not
 *    hold it: the node posts the signal in the world's header and rings;
 *    the launcher asks every node to flush and ends the world (simworld).
 */
#include "signal/signal.h"

#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "intercept/intercept.h"
#include "core/core.h"
#include "sched/sched.h"
#include "world/world.h"

/* How long the baton holder has to meet an event and end the run itself. */
#define OUTSIDE_GRACE_MS 500

static const int outside_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGALRM };

uint32_t detsim__outside_sig;
static long (*real_syscall)(long, ...);
static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

static void on_outside(int sig) {
  if (!W.running) {
    /* No simulation here (a native child of fork): the signal's default
     * action, as without detsim. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    real_sigaction(sig, &dfl, NULL);
    real_syscall(SYS_kill, real_syscall(SYS_getpid), sig);
    return;
  }
  uint32_t none = 0;
  if (!__atomic_compare_exchange_n(&detsim__outside_sig, &none, (uint32_t)sig, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE))
    return; /* the first signal is the one the run ends for */
  W.event_stop = 0;
  real_syscall(SYS_futex, &detsim__outside_sig, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void detsim__outside_install(void) {
  real_syscall = REAL(syscall);
  real_sigaction = REAL(sigaction);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_outside;
  /* Calls the program has in the kernel go on (they are not the
   * simulation's to interrupt); the run ends around them. */
  sa.sa_flags = SA_RESTART;
  sigfillset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof outside_signals / sizeof outside_signals[0]; i++)
    REAL(sigaction)(outside_signals[i], &sa, NULL);
}

static const char *sig_name(int sig, char *buf, size_t n) {
  snprintf(buf, n, "SIG%s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
  return buf;
}

void detsim__outside_flush_stdio(void) {
  FILE *streams[2] = { stdout, stderr };
  for (int i = 0; i < 2; i++)
    if (ftrylockfile(streams[i]) == 0) {
      fflush_unlocked(streams[i]);
      funlockfile(streams[i]);
    }
}

/* Tells the launcher (a world): it ends the world for this signal. */
static void post_to_launcher(int sig) {
  uint32_t none = 0;
  if (__atomic_compare_exchange_n(&detsim__ws->outside_signal, &none, (uint32_t)sig, false, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE))
    __atomic_store_n(&detsim__ws->outside_node, (int32_t)detsim__node_index, __ATOMIC_RELEASE);
  detsim__world_ring_launcher();
}

static _Noreturn void end_for(int sig, const char *how) {
  char name[16], extra[64];
  sig_name(sig, name, sizeof name);
  detsim__msg("%s from outside the simulation %s", name, how);
  snprintf(extra, sizeof extra, "reason=signal signal=%s", name);
  detsim__finish(DETSIM_CLASS_inconclusive, 0, extra);
}

_Noreturn void detsim__outside_end_at_event(void) {
  int sig = (int)__atomic_load_n(&detsim__outside_sig, __ATOMIC_ACQUIRE);
  /* The other nodes flush their stdio when the launcher asks them for
   * their last events (world.c). */
  if (detsim__world_hosts()) post_to_launcher(sig);
  end_for(sig, "ends the run");
}

static void sleep_ms(unsigned ms) {
  struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
  REAL(nanosleep)(&ts, NULL);
}

void detsim__outside_watch(void) {
  int sig = (int)__atomic_load_n(&detsim__outside_sig, __ATOMIC_ACQUIRE);
  if (sig == 0 || !W.running) return;
  if (detsim__world_hosts() && __atomic_load_n(&detsim__ws->current, __ATOMIC_ACQUIRE) != detsim__node_index) {
    /* Parked: no thread of this node holds stdio; the launcher ends the
     * world and asks this node, like the others, to flush. */
    post_to_launcher(sig);
    for (;;) sleep_ms(1000); /* the launcher ends this process */
  }
  sleep_ms(OUTSIDE_GRACE_MS);
  /* The holder is ending the run: its exit ends this thread. */
  if (detsim__report_finishing()) for (;;) sleep_ms(1000);
  /* Still here: the holder met no event (stuck in the kernel, or a spin
   * loop).  It may hold a stdio lock. */
  detsim__outside_flush_stdio();
  detsim__report_no_flush();
  if (detsim__world_hosts()) post_to_launcher(sig);
  end_for(sig, "ends the run (a thread is stuck outside the simulation: stdio flushed where no thread held it)");
}
