/* A process stopped with nothing left to continue it: the run ends as the
 * deadlock it is, naming the stopped process.
 *
 *   stop_forever alone   the run's only process raises SIGSTOP
 *   stop_forever child   a child raises SIGSTOP; its parent waits for its
 *                        end (not for stops), which never comes
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "alone") == 0) {
    raise(SIGSTOP);
    printf("continued\n");
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "child") == 0) {
    pid_t c = fork();
    if (c == 0) {
      raise(SIGSTOP);
      _exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    printf("child ended\n");
    return 0;
  }
  fprintf(stderr, "usage: stop_forever alone|child\n");
  return 2;
}
