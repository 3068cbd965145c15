/* exec of a binary that is not a simulation build (/bin/true) is an
 * escape: the call fails with EPERM and an error naming the binary, the
 * child stays in the world (it _exits 127, which its parent sees), and the
 * run ends inconclusive with reason=exec-escape.  With exec_native=1 the
 * binary runs outside instead (/bin/sh -c 'exit 4'), the parent waits for
 * it, and the result line says replayable=no. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const char *binary = argc > 1 && strcmp(argv[1], "shell") == 0 ? "/bin/sh" : "/bin/true";
  pid_t c = fork();
  if (c == 0) {
    execl(binary, binary, "-c", "exit 4", (char *)NULL);
    printf("execl=-1 eperm=%d\n", errno == EPERM);
    fflush(stdout);
    _exit(127);
  }
  int st;
  waitpid(c, &st, 0);
  printf("child_status=%d\n", WEXITSTATUS(st));
  return 0;
}
