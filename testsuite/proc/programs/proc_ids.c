/* The world's ids for forked processes (docs/worlds.md, "Process and
 * thread ids"): the first process is 1000 (its parent 999); a thread takes
 * the next id; a forked child the next after that, its only thread's tid is
 * its pid, it is in its parent's group and session, and its getppid is its
 * parent's pid, or 1 once its parent has ended (an orphan).  SIGCHLD's
 * si_pid and a signal's si_pid are the senders' virtual pids; kill(0) of
 * the group reaches a child; waitpid(0) finds it. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_from, chld_from;
static void on_usr1(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  usr1_from = si->si_pid;
}
static void on_chld(int sig, siginfo_t *si, void *uc) {
  (void)sig, (void)uc;
  chld_from = si->si_pid;
}

static void *nothing(void *arg) { return arg; }

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_flags = SA_SIGINFO;
  sa.sa_sigaction = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  sa.sa_sigaction = on_chld;
  sigaction(SIGCHLD, &sa, NULL);
  pthread_t t;
  pthread_create(&t, NULL, nothing, NULL);
  pthread_join(t, NULL);
  printf("parent pid=%d ppid=%d pgrp=%d\n", (int)getpid(), (int)getppid(), (int)getpgrp());
  int p[2];
  if (pipe(p) != 0) return 1;
  pid_t c = fork();
  if (c == 0) {
    printf("child pid=%d tid=%d ppid=%d pgrp=%d sid=%d\n", (int)getpid(), (int)gettid(), (int)getppid(),
           (int)getpgrp(), (int)getsid(0));
    pid_t g = fork();
    if (g == 0) {
      char b;
      if (read(p[0], &b, 1) != 1) _exit(3); /* its parent has ended meanwhile */
      printf("grandchild pid=%d ppid=%d\n", (int)getpid(), (int)getppid());
      _exit(0);
    }
    printf("child forked %d\n", (int)g);
    _exit(7);
  }
  int st = 0;
  pid_t w = waitpid(0, &st, 0);
  printf("waitpid(0)=%d status=%d sigchld_from=%d\n", (int)w, WEXITSTATUS(st), (int)chld_from);
  if (write(p[1], "x", 1) != 1) return 2;
  pid_t c2 = fork();
  if (c2 == 0) {
    sigset_t none;
    sigemptyset(&none);
    while (!usr1_from) sigsuspend(&none);
    printf("second child pid=%d usr1_from=%d\n", (int)getpid(), (int)usr1_from);
    _exit(0);
  }
  signal(SIGUSR1, SIG_IGN); /* the group's signal reaches this process too */
  printf("kill(0)=%d\n", kill(0, SIGUSR1));
  waitpid(c2, &st, 0);
  printf("getpgid(child)=%d\n", (int)getpgid(c2)); /* reaped: ESRCH */
  sleep(1); /* the orphaned grandchild prints */
  return 0;
}
