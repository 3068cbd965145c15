/* Conformance: process and thread ids, as a program can check them.
 *
 * The numbers differ natively and simulated (the world's pids start at
 * 1000: testsuite/runtime/proc/proc_ids.c checks them), so this prints how they
 * relate, which Linux fixes: the main thread's tid is the pid, threads have
 * distinct tids of their own, a signal a process sends itself names its
 * pid in si_pid, /proc/self and SO_PEERCRED name the pid, the group and
 * session calls agree with each other, and a pid no process has is ESRCH.
 */
#include <signal.h>
#include <sys/syscall.h>

#include "conf.h"

static pid_t thread_tid[2];
static volatile pid_t si_pid_seen;
static volatile int si_code_seen;

static void *thread_main(void *arg) {
  thread_tid[(long)arg] = gettid();
  return NULL;
}

static void on_usr1(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  si_pid_seen = si->si_pid;
  si_code_seen = si->si_code;
}

int main(void) {
  pid_t pid = getpid();
  printf("main tid==pid: %d\n", gettid() == pid);
  printf("syscall(SYS_gettid)==gettid: %d\n", syscall(SYS_gettid) == gettid());
  printf("ppid positive, not self: %d\n", getppid() > 0 && getppid() != pid);
  printf("getpgid(0)==getpgrp: %d\n", getpgid(0) == getpgrp());
  printf("getpgid(pid)==getpgrp: %d\n", getpgid(pid) == getpgrp());
  printf("getsid(0)==getsid(pid): %d\n", getsid(0) == getsid(pid));

  pthread_t t[2];
  for (long i = 0; i < 2; i++) MUST(pthread_create(&t[i], NULL, thread_main, (void *)i) == 0);
  for (int i = 0; i < 2; i++) MUST(pthread_join(t[i], NULL) == 0);
  printf("thread tids distinct, not the pid: %d\n",
         thread_tid[0] != thread_tid[1] && thread_tid[0] != pid && thread_tid[1] != pid && thread_tid[0] > 0);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  MUST(sigaction(SIGUSR1, &sa, NULL) == 0);
  SHOW("kill(self, SIGUSR1)", kill(pid, SIGUSR1));
  printf("si_pid==pid: %d si_code==SI_USER: %d\n", si_pid_seen == pid, si_code_seen == SI_USER);
  si_pid_seen = 0;
  MUST(sigqueue(pid, SIGUSR1, (union sigval){ .sival_int = 7 }) == 0);
  printf("sigqueue si_pid==pid: %d si_code==SI_QUEUE: %d\n", si_pid_seen == pid, si_code_seen == SI_QUEUE);
  /* Signal 0 only to the group: natively it holds the test driver too. */
  SHOW("kill(0, 0)", kill(0, 0));
  SHOW("kill(self, 0)", kill(pid, 0));
  SHOW("kill(-pgrp, 0)", kill(-getpgrp(), 0));
  /* Above the largest pid_max Linux allows: never a process. */
  SHOW("kill(5000000, 0)", kill(5000000, 0));
  SHOW("kill(self, 65)", kill(pid, 65));
  SHOW("getpgid(5000000)", getpgid(5000000));
  SHOW("getsid(5000000)", getsid(5000000));

  char link[64], want[64];
  ssize_t n = readlink("/proc/self", link, sizeof link - 1);
  MUST(n > 0);
  link[n] = '\0';
  snprintf(want, sizeof want, "%d", (int)pid);
  printf("readlink(/proc/self)==pid: %d\n", !strcmp(link, want));
  n = readlink("/proc/self", link, 2);
  printf("readlink(/proc/self, 2 bytes)=%zd\n", n);
  n = readlink("/proc/thread-self", link, sizeof link - 1);
  MUST(n > 0);
  link[n] = '\0';
  snprintf(want, sizeof want, "%d/task/%d", (int)pid, (int)gettid());
  printf("readlink(/proc/thread-self)==pid/task/tid: %d\n", !strcmp(link, want));

  int sv[2];
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  struct ucred cr;
  socklen_t len = sizeof cr;
  MUST(getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0);
  printf("SO_PEERCRED pid==pid: %d\n", cr.pid == pid);
  close(sv[0]);
  close(sv[1]);
  return 0;
}
