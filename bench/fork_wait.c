/* fork + wait: N children, each _exit(0) at once, each waited for before
 * the next fork.  Prints the count, so a broken run is seen.  Under detsim
 * each fork makes a simulated process (a node slot of the run's world), so
 * N stays under the world's process limit (64). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  int ok = 0;
  for (int i = 0; i < n; i++) {
    pid_t c = fork();
    if (c < 0) return 1;
    if (c == 0) _exit(0);
    int st;
    if (waitpid(c, &st, 0) == c && WIFEXITED(st)) ok++;
  }
  printf("forked=%d\n", ok);
  return ok == n ? 0 : 1;
}
