/* fork + wait: N children, each _exit(0) at once, each waited for before
 * the next fork.  `fork_wait N exec`: each child execs this program again
 * (as "fork_wait child", which returns 0 at once) before it ends, so the
 * difference is the cost of an exec.  Prints the count, so a broken run is
 * seen.  Under detsim each fork makes a simulated process (a node slot of
 * the run's world; an exec keeps its slot), so N stays under the world's
 * process limit (64). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) return 0;
  int n = argc > 1 ? atoi(argv[1]) : 50;
  int exec = argc > 2 && strcmp(argv[2], "exec") == 0;
  int ok = 0;
  for (int i = 0; i < n; i++) {
    pid_t c = fork();
    if (c < 0) return 1;
    if (c == 0) {
      if (exec) execl("/proc/self/exe", argv[0], "child", (char *)NULL);
      _exit(exec ? 127 : 0);
    }
    int st;
    if (waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0) ok++;
  }
  printf("forked=%d\n", ok);
  return ok == n ? 0 : 1;
}
