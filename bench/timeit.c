/* timeit: runs a command and writes its wall-clock and CPU time.
 *
 *   timeit -o RESULT-FILE -- PROGRAM [ARGS...]
 *
 * The command inherits stdin/stdout/stderr.  RESULT-FILE gets one line,
 * "wall_ns=<n> user_ns=<n> sys_ns=<n> status=<n> vcsw=<n>", where status is
 * the exit status, or 128+signal.  timeit exits with that status too.  The
 * CPU times and vcsw (voluntary context switches) come from wait4's rusage,
 * so they cover every thread of the child, and the descendants it waited
 * for.  It is
 * part of bench/run.sh, not of detsim: it is built with plain clang.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static unsigned long long tv_ns(struct timeval tv) {
  return (unsigned long long)tv.tv_sec * 1000000000ull + (unsigned long long)tv.tv_usec * 1000ull;
}

int main(int argc, char **argv) {
  if (argc < 5 || strcmp(argv[1], "-o") != 0 || strcmp(argv[3], "--") != 0) {
    fprintf(stderr, "usage: timeit -o RESULT-FILE -- PROGRAM [ARGS...]\n");
    return 2;
  }
  FILE *out = fopen(argv[2], "w");
  if (out == NULL) {
    perror(argv[2]);
    return 2;
  }
  unsigned long long start = now_ns();
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 2;
  }
  if (pid == 0) {
    fclose(out);
    execvp(argv[4], argv + 4);
    perror(argv[4]);
    _exit(127);
  }
  int wstatus = 0;
  struct rusage ru;
  if (wait4(pid, &wstatus, 0, &ru) != pid) {
    perror("wait4");
    return 2;
  }
  unsigned long long wall = now_ns() - start;
  int status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  fprintf(out, "wall_ns=%llu user_ns=%llu sys_ns=%llu status=%d vcsw=%ld\n", wall, tv_ns(ru.ru_utime),
          tv_ns(ru.ru_stime), status, ru.ru_nvcsw);
  fclose(out);
  return status;
}
