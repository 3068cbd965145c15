/* fork + exec of a simulation build (this program again, as its helper):
 * the helper keeps its parent's pid, inherits a pipe without FD_CLOEXEC
 * and reports through it; a pipe with FD_CLOEXEC closes at the exec (its
 * reader sees end-of-file); an ignored signal stays ignored, a handled one
 * is reset, the mask is kept; the helper's exit status reaches waitpid. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_usr2(int sig) { (void)sig; }

static int helper(char **argv) {
  int out = atoi(argv[2]), gone = atoi(argv[3]);
  pid_t pid = (pid_t)atol(argv[4]), ppid = (pid_t)atol(argv[5]);
  struct sigaction usr1, usr2;
  sigaction(SIGUSR1, NULL, &usr1);
  sigaction(SIGUSR2, NULL, &usr2);
  sigset_t mask;
  sigprocmask(SIG_BLOCK, NULL, &mask);
  errno = 0;
  int gone_flags = fcntl(gone, F_GETFD);
  char line[256];
  int n = snprintf(line, sizeof line,
                   "same_pid=%d same_ppid=%d cloexec_closed=%d usr1_ignored=%d usr2_default=%d term_blocked=%d\n",
                   getpid() == pid, getppid() == ppid, gone_flags == -1 && errno == EBADF,
                   usr1.sa_handler == SIG_IGN, usr2.sa_handler == SIG_DFL, sigismember(&mask, SIGTERM));
  if (write(out, line, (size_t)n) != n) return 1;
  return 3;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "helper") == 0) return helper(argv);
  int kept[2], closed[2];
  if (pipe(kept) != 0 || pipe2(closed, O_CLOEXEC) != 0) return 1;
  pid_t parent = getpid();
  pid_t c = fork();
  if (c == 0) {
    close(kept[0]);
    close(closed[0]);
    signal(SIGUSR1, SIG_IGN);
    signal(SIGUSR2, on_usr2);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, NULL);
    char a[4][24];
    snprintf(a[0], sizeof a[0], "%d", kept[1]);
    snprintf(a[1], sizeof a[1], "%d", closed[1]);
    snprintf(a[2], sizeof a[2], "%ld", (long)getpid());
    snprintf(a[3], sizeof a[3], "%ld", (long)parent);
    execl("/proc/self/exe", argv[0], "helper", a[0], a[1], a[2], a[3], (char *)NULL);
    printf("exec failed: %s\n", strerror(errno));
    _exit(126);
  }
  close(kept[1]);
  close(closed[1]);
  char buf[512];
  ssize_t eof = read(closed[0], buf, sizeof buf);
  printf("cloexec pipe read=%zd\n", eof);
  size_t got = 0;
  ssize_t r;
  while ((r = read(kept[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)r;
  buf[got] = '\0';
  printf("helper said: %s", buf);
  int st;
  pid_t w = waitpid(c, &st, 0);
  printf("waitpid=child:%d exited=%d status=%d\n", w == c, WIFEXITED(st), WEXITSTATUS(st));
  return 0;
}
