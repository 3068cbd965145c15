/* SIGCHLD: a handler runs when a child ends; with SIGCHLD ignored or
 * SA_NOCLDWAIT the child is reaped at its end, and wait() gives ECHILD
 * once no child is left. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_chld(int sig) {
  (void)sig;
  got++;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_chld;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGCHLD);
  sigprocmask(SIG_BLOCK, &block, &old);
  pid_t c = fork();
  if (c == 0) _exit(0);
  while (got == 0) sigsuspend(&old);
  printf("handled=%d\n", (int)got);
  int st;
  printf("reaped=%d\n", waitpid(c, &st, 0) == c);
  sigprocmask(SIG_SETMASK, &old, NULL);

  signal(SIGCHLD, SIG_IGN);
  c = fork();
  if (c == 0) _exit(4);
  errno = 0;
  pid_t w = wait(&st);
  printf("ignored: wait=%d echild=%d\n", (int)w, errno == ECHILD);

  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sa.sa_flags = SA_NOCLDWAIT;
  sigaction(SIGCHLD, &sa, NULL);
  c = fork();
  if (c == 0) {
    usleep(1000);
    _exit(4);
  }
  errno = 0;
  w = waitpid(c, &st, 0);
  printf("nocldwait: wait=%d echild=%d\n", (int)w, errno == ECHILD);
  return 0;
}
