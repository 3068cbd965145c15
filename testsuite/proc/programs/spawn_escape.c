/* posix_spawn, system and popen of what is not a simulation build are
 * escapes: refused before any process is made (EPERM, an error naming the
 * binary or the shell the command line needs); the run ends inconclusive. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

int main(void) {
  pid_t c;
  char *args[] = { "true", NULL };
  int r = posix_spawn(&c, "/bin/true", NULL, NULL, args, environ);
  printf("posix_spawn=%s\n", strerror(r));
  errno = 0;
  int st = system("echo hi | cat");
  printf("system=%d eperm=%d\n", st, errno == EPERM);
  errno = 0;
  FILE *f = popen("true", "r");
  printf("popen=%s eperm=%d\n", f ? "stream" : "NULL", errno == EPERM);
  return 0;
}
