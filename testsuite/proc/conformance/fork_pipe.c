/* fork with a pipe shared by parent and child: the child writes, the
 * parent reads to end-of-file, which comes only once both closed the
 * write end (the parent's own copy first, then the child's at its exit);
 * waitpid reports the child's exit status. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  int p[2];
  if (pipe(p) != 0) return 1;
  pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(p[0]);
    const char *msg = "hello from the child\n";
    for (int i = 0; i < 3; i++)
      if (write(p[1], msg, strlen(msg)) != (ssize_t)strlen(msg)) _exit(3);
    _exit(7);
  }
  close(p[1]);
  char buf[256];
  size_t got = 0;
  ssize_t n;
  while ((n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)n;
  buf[got] = '\0';
  printf("read %zu bytes, eof=%d\n%s", got, n == 0, buf);
  int st = 0;
  pid_t w = waitpid(child, &st, 0);
  printf("waitpid_is_child=%d exited=%d status=%d\n", w == child, WIFEXITED(st), WEXITSTATUS(st));
  printf("again=%d\n", (int)waitpid(child, &st, 0));
  return 0;
}
