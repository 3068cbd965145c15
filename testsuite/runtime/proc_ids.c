/* Virtual pids and tids: the world's numbers, at their natural width.
 *
 * Prints the process's ids, each thread's tid (threads are created in a
 * fixed order, so their tids are fixed; they run in the seed's order), the
 * pid a signal carries (si_pid), what kill() says for pids outside the
 * world, and sends its pid through a pipe, so the bytes (and the history)
 * depend on the number's digits: the same in every run of a seed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int si_pid_seen;

static void on_usr1(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  si_pid_seen = si->si_pid;
}

static void *worker(void *arg) {
  printf("thread %ld tid=%d pid=%d\n", (long)arg, (int)gettid(), (int)getpid());
  return NULL;
}

static void show_kill(const char *label, pid_t pid, int sig) {
  errno = 0;
  int r = kill(pid, sig);
  printf("%s=%d %s\n", label, r, r == 0 ? "ok" : strerrorname_np(errno));
}

int main(void) {
  printf("pid=%d ppid=%d tid=%d pgrp=%d sid=%d\n", (int)getpid(), (int)getppid(), (int)gettid(), (int)getpgrp(),
         (int)getsid(0));
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR1, &sa, NULL);
  kill(getpid(), SIGUSR1);
  printf("si_pid=%d\n", si_pid_seen);
  show_kill("kill(outside)", 4321, SIGUSR1);
  show_kill("kill(init)", 1, 0);
  show_kill("kill(parent)", getppid(), 0);
  show_kill("kill(-1)", -1, 0);
  show_kill("kill(-pgrp)", -getpgrp(), 0);

  /* The pid through simulated I/O, as a server tells a client. */
  int p[2];
  pipe(p);
  char line[32];
  int n = snprintf(line, sizeof line, "%d\n", (int)getpid());
  write(p[1], line, (size_t)n);
  char got[32] = { 0 };
  read(p[0], got, sizeof got - 1);
  printf("through a pipe: %s", got);
  return 0;
}
