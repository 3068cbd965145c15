/* posix_spawn of a simulation build (this program as its helper) with file
 * actions (adddup2 of a pipe onto stdout, addclose, addopen) and
 * attributes (SETSIGMASK, SETSIGDEF): the helper reports what it got
 * through the pipe, and its exit status reaches waitpid. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int helper(void) {
  char b[4];
  ssize_t devnull = read(5, b, sizeof b);
  sigset_t mask;
  sigprocmask(SIG_BLOCK, NULL, &mask);
  struct sigaction usr2, term;
  sigaction(SIGUSR2, NULL, &usr2);
  sigaction(SIGTERM, NULL, &term);
  errno = 0;
  int closed = fcntl(6, F_GETFD) == -1 && errno == EBADF;
  printf("helper: fd5_read=%zd fd6_closed=%d usr1_blocked=%d usr2_default=%d term_ignored=%d\n", devnull, closed,
         sigismember(&mask, SIGUSR1), usr2.sa_handler == SIG_DFL, term.sa_handler == SIG_IGN);
  return 5;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "helper") == 0) return helper();
  int p[2];
  if (pipe(p) != 0) return 1;
  /* A descriptor the actions close (6), whatever number it had. */
  int six = dup2(p[1], 6);
  signal(SIGUSR2, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, p[1], 1);
  posix_spawn_file_actions_addclose(&fa, p[0]);
  posix_spawn_file_actions_addclose(&fa, p[1]);
  posix_spawn_file_actions_addclose(&fa, six);
  posix_spawn_file_actions_addopen(&fa, 5, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  sigset_t m, d;
  sigemptyset(&m);
  sigaddset(&m, SIGUSR1);
  sigemptyset(&d);
  sigaddset(&d, SIGUSR2);
  posix_spawnattr_setsigmask(&at, &m);
  posix_spawnattr_setsigdefault(&at, &d);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t c;
  char *args[] = { argv[0], "helper", NULL };
  int r = posix_spawn(&c, "/proc/self/exe", &fa, &at, args, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  printf("posix_spawn=%d\n", r);
  close(p[1]);
  close(six);
  char buf[512];
  size_t got = 0;
  ssize_t n;
  while ((n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)n;
  buf[got] = '\0';
  printf("through the pipe: %s", buf);
  int st;
  pid_t w = waitpid(c, &st, 0);
  printf("waitpid=child:%d status=%d\n", w == c, WEXITSTATUS(st));
  /* posix_spawnp finds a name in PATH: a missing one is ENOENT. */
  char *none[] = { "detsim-no-such-binary", NULL };
  printf("posix_spawnp(missing)=%s\n", strerror(posix_spawnp(&c, "detsim-no-such-binary", NULL, NULL, none, environ)));
  return 0;
}
