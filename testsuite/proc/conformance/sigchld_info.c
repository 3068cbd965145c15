/* A SIGCHLD handler with SA_SIGINFO sees the child that ended: si_code
 * CLD_EXITED with its exit status, or CLD_KILLED with the signal, and its
 * pid in si_pid. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got, code, status;
static volatile pid_t from;

static void on_chld(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  got++;
  code = si->si_code;
  status = si->si_status;
  from = si->si_pid;
}

static void one(const char *what, int killed) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGCHLD);
  sigprocmask(SIG_BLOCK, &block, &old);
  got = 0;
  pid_t c = fork();
  if (c == 0) {
    if (killed) for (;;) pause();
    _exit(7);
  }
  if (killed) kill(c, SIGTERM);
  while (got == 0) sigsuspend(&old);
  sigprocmask(SIG_SETMASK, &old, NULL);
  printf("%s: handled=%d exited=%d killed=%d status=%d from_child=%d\n", what, (int)got, code == CLD_EXITED,
         code == CLD_KILLED, (int)status, from == c);
  waitpid(c, NULL, 0);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_chld;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  one("exit", 0);
  one("sigterm", 1);
  return 0;
}
