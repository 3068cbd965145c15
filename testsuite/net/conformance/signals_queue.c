/* Rule: real-time signals queue, standard ones do not.  Sent while blocked,
 * a standard signal is delivered once however often it was sent; every
 * instance of a real-time signal is delivered, with its own si_value, in
 * the order sent; lower-numbered signals first.  sigwaitinfo takes the
 * queued instances one by one; sigqueue's pointer value arrives whole. */
#include "conf.h"

#include <signal.h>

static int order[16], n_order;

static void on_signal(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  if (n_order < 16) order[n_order++] = sig == SIGUSR1 ? -1 : (sig - SIGRTMIN) * 100 + si->si_value.sival_int;
}

static void block(int how, const sigset_t *set) { pthread_sigmask(how, set, NULL); }

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigset_t set;
  sigemptyset(&set);
  int sigs[] = { SIGUSR1, SIGRTMIN, SIGRTMIN + 1 };
  for (int i = 0; i < 3; i++) {
    sigaction(sigs[i], &sa, NULL);
    sigaddset(&set, sigs[i]);
    sigaddset(&sa.sa_mask, sigs[i]); /* handlers do not nest: the order is the dequeue order */
  }
  for (int i = 0; i < 3; i++) sigaction(sigs[i], &sa, NULL);

  block(SIG_BLOCK, &set);
  sigqueue(getpid(), SIGRTMIN + 1, (union sigval){ .sival_int = 10 });
  for (int v = 1; v <= 3; v++) sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = v });
  sigqueue(getpid(), SIGRTMIN + 1, (union sigval){ .sival_int = 11 });
  for (int i = 0; i < 3; i++) kill(getpid(), SIGUSR1);
  block(SIG_UNBLOCK, &set);
  printf("delivered:");
  for (int i = 0; i < n_order; i++) printf(" %d", order[i]);
  printf("\n");

  /* sigwaitinfo takes the queued instances one by one. */
  sigset_t rt;
  sigemptyset(&rt);
  sigaddset(&rt, SIGRTMIN);
  block(SIG_BLOCK, &rt);
  static long payload[3];
  for (int i = 0; i < 3; i++) sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_ptr = &payload[i] });
  printf("waited:");
  for (int i = 0; i < 3; i++) {
    siginfo_t si;
    int s = sigwaitinfo(&rt, &si);
    printf(" %s", s == SIGRTMIN && si.si_code == SI_QUEUE && si.si_value.sival_ptr == &payload[i] ? "ok" : "wrong");
  }
  sigset_t pending;
  sigpending(&pending);
  printf("; still pending=%d\n", sigismember(&pending, SIGRTMIN));
  return 0;
}
