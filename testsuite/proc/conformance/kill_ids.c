/* Pids between parent and child: fork's return is the child's getpid(),
 * the child's getppid() is the parent's getpid(), they differ; the child
 * signals its parent with kill(getppid(), SIGUSR1) and the parent's
 * handler runs; kill(child, 0) succeeds while the child lives. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig) {
  (void)sig;
  got_usr1 = 1;
}

int main(void) {
  signal(SIGUSR1, on_usr1);
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigprocmask(SIG_BLOCK, &block, &old);
  int p[2], q[2];
  if (pipe(p) != 0 || pipe(q) != 0) return 1;
  pid_t parent = getpid();
  pid_t c = fork();
  if (c == 0) {
    pid_t ids[2] = { getpid(), getppid() };
    if (write(p[1], ids, sizeof ids) != (ssize_t)sizeof ids) _exit(2);
    kill(getppid(), SIGUSR1);
    char b;
    /* Waits for the parent's word before it ends. */
    if (read(q[0], &b, 1) != 1) _exit(3);
    _exit(0);
  }
  pid_t ids[2];
  if (read(p[0], ids, sizeof ids) != (ssize_t)sizeof ids) return 2;
  printf("fork_returns_child_pid=%d child_ppid_is_parent=%d differ=%d\n", ids[0] == c, ids[1] == parent,
         ids[0] != parent);
  while (!got_usr1) sigsuspend(&old);
  printf("parent got SIGUSR1=%d\n", (int)got_usr1);
  printf("kill(child, 0)=%d\n", kill(c, 0));
  if (write(q[1], "x", 1) != 1) return 3;
  int st;
  waitpid(c, &st, 0);
  printf("child status=%d\n", WEXITSTATUS(st));
  return 0;
}
