/* A child's failed DETSIM_CHECK ends the run as correctness: one result
 * line for the run (the first process writes it), naming the check. */
#include <detsim.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  pid_t c = fork();
  if (c == 0) {
    usleep(1000);
    DETSIM_CHECK(c != 0, "child_invariant");
    _exit(0);
  }
  waitpid(c, NULL, 0);
  return 0;
}
