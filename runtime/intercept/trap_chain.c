/* A synchronous fault the trap handlers do not answer (intercept/intercept.h).
 *
 * The fault belongs to the instruction that raised it, as on Linux: if the
 * program set a handler for that signal (its simulated disposition, from
 * sigaction), the handler runs at once, on the faulting thread, with the
 * kernel's siginfo and context, and returning from it retries the
 * instruction (or resumes where the handler moved the context).  With no
 * handler (SIG_DFL, SIG_IGN: a fault cannot be ignored) the action that was
 * installed before ours runs: the runtime's crash report.  The program's
 * signal mask does not defer a fault (Linux forces one through a blocked
 * mask too).
 */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "intercept/intercept.h"
#include "signal/signal.h"

/* The kernel's default action (the process ends by the signal): the real
 * disposition back to SIG_DFL, the signal unblocked and sent again. */
static void run_default(int sig) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  REAL(sigaction)(sig, &dfl, NULL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  REAL(sigprocmask)(SIG_UNBLOCK, &set, NULL);
  detsim__trap_raw(SYS_tgkill, detsim__trap_raw(SYS_getpid, 0, 0, 0, 0), detsim__trap_raw(SYS_gettid, 0, 0, 0, 0), sig, 0);
}

void detsim__trap_chain(int sig, siginfo_t *si, void *uctx, const struct sigaction *previous) {
  struct sigaction mine;
  if (detsim__sig_action(sig, NULL, &mine) == 0 &&
      ((mine.sa_flags & SA_SIGINFO) ? mine.sa_sigaction != NULL
                                    : mine.sa_handler != SIG_DFL && mine.sa_handler != SIG_IGN)) {
    struct sigaction now = mine;
    if (mine.sa_flags & SA_RESETHAND) {
      struct sigaction dfl;
      memset(&dfl, 0, sizeof dfl);
      dfl.sa_handler = SIG_DFL;
      detsim__sig_action(sig, &dfl, NULL);
    }
    uint64_t work = detsim__trap_work_save();
    if (now.sa_flags & SA_SIGINFO) now.sa_sigaction(sig, si, uctx);
    else now.sa_handler(sig);
    detsim__trap_work_restore(work);
    return;
  }
  if (previous->sa_flags & SA_SIGINFO) {
    if (previous->sa_sigaction != NULL) {
      previous->sa_sigaction(sig, si, uctx);
      return;
    }
  } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
    previous->sa_handler(sig);
    return;
  }
  run_default(sig);
}
