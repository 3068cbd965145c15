/* Exit statuses as waitpid reports them: exit(), _exit(), a return from
 * the child's code path, and ends by signals: kill() by the parent
 * (SIGTERM, SIGKILL) while the child sleeps, abort(), a real SIGSEGV. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void report(const char *what, pid_t child) {
  int st = 0;
  pid_t w = waitpid(child, &st, 0);
  printf("%s: waited=%d", what, w == child);
  if (WIFEXITED(st)) printf(" exited status=%d\n", WEXITSTATUS(st));
  else if (WIFSIGNALED(st)) printf(" signaled sig=%d\n", WTERMSIG(st));
  else printf(" other=%#x\n", st);
  fflush(stdout);
}

static void bye(void) { printf("child atexit handler\n"); }

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  pid_t c = fork();
  if (c == 0) {
    atexit(bye);
    exit(3);
  }
  report("exit(3)", c);

  c = fork();
  if (c == 0) _exit(250);
  report("_exit(250)", c);

  c = fork();
  if (c == 0) {
    sleep(1000);
    _exit(1);
  }
  kill(c, SIGTERM);
  report("kill SIGTERM", c);

  c = fork();
  if (c == 0) {
    for (;;) pause();
  }
  kill(c, SIGKILL);
  report("kill SIGKILL", c);

  c = fork();
  if (c == 0) abort();
  report("abort", c);

  c = fork();
  if (c == 0) {
    volatile int *nowhere = NULL;
    *nowhere = 1;
    _exit(1);
  }
  report("segv", c);

  c = fork();
  if (c == 0) {
    signal(SIGTERM, SIG_IGN);
    raise(SIGTERM); /* ignored */
    _exit(9);
  }
  report("ignored SIGTERM", c);
  return 0;
}
