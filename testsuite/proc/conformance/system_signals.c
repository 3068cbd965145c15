/* system() as POSIX specifies it around the child: SIGCHLD blocked and
 * SIGINT/SIGQUIT ignored in the caller while it waits, the caller's own
 * dispositions and mask back in the child and after the return.  The helper
 * (this program, a plain-words command line) sends SIGINT and SIGQUIT to
 * the caller, whose handlers must not run; the child's SIGCHLD stays pending
 * until system returns, so the handler then finds nothing left to reap. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t interrupts, chld_runs, chld_reaped, chld_echild;

static void on_int(int sig) {
  (void)sig;
  interrupts++;
}

static void on_chld(int sig) {
  (void)sig;
  int saved = errno;
  chld_runs++;
  pid_t p = waitpid(-1, NULL, WNOHANG);
  if (p > 0) chld_reaped++;
  if (p < 0 && errno == ECHILD) chld_echild++;
  errno = saved;
}

int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "interrupt") == 0) {
    /* Its own dispositions are the caller's, restored before exec: a
     * handler is reset to default by exec, an ignored signal stays so. */
    struct sigaction sa;
    sigaction(SIGINT, NULL, &sa);
    printf("helper: SIGINT %s\n", sa.sa_handler == SIG_DFL ? "default" : "not default");
    sigset_t mask;
    sigprocmask(SIG_BLOCK, NULL, &mask);
    printf("helper: SIGCHLD %s\n", sigismember(&mask, SIGCHLD) ? "blocked" : "unblocked");
    fflush(stdout);
    pid_t caller = (pid_t)atoi(argv[2]);
    kill(caller, SIGINT);
    kill(caller, SIGQUIT);
    return 3;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_int;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGQUIT, &sa, NULL);
  sa.sa_handler = on_chld;
  sigaction(SIGCHLD, &sa, NULL);

  char self[512], cmd[640];
  ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  if (k <= 0) return 1;
  self[k] = '\0';
  snprintf(cmd, sizeof cmd, "%s interrupt %d", self, (int)getpid());
  fflush(stdout);
  int st = system(cmd);
  printf("system: exited=%d status=%d\n", WIFEXITED(st), WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  printf("during system: interrupts=%d\n", (int)interrupts);
  printf("after system: sigchld handler runs=%d reaped=%d echild=%d\n", (int)chld_runs, (int)chld_reaped,
         (int)chld_echild);
  sigset_t mask;
  sigprocmask(SIG_BLOCK, NULL, &mask);
  printf("after system: SIGCHLD %s\n", sigismember(&mask, SIGCHLD) ? "blocked" : "unblocked");
  raise(SIGINT);
  raise(SIGQUIT);
  printf("after system: interrupts=%d (handlers back)\n", (int)interrupts);
  return 0;
}
