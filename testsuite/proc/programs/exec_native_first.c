/* With exec_native=1, the run's first process exec'ing a binary that is
 * not a simulation build ends the simulated run there: its result line
 * first (reason=exec-native replayable=no), then the binary replaces it
 * and its output and exit status are the process's. */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  printf("before the exec\n");
  fflush(stdout);
  execl("/bin/sh", "sh", "-c", "echo outside the simulation", (char *)NULL);
  printf("exec failed\n");
  return 1;
}
