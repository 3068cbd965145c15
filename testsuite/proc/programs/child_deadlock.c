/* The parent waits for a child that waits forever on a pipe nobody
 * writes: a deadlock of the whole world, with one result line (the
 * first process's), naming the blocked thread. */
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  int p[2];
  if (pipe(p) != 0) return 1;
  pid_t c = fork();
  if (c == 0) {
    char b;
    /* p[1] stays open here and in the parent: no end-of-file. */
    (void)!read(p[0], &b, 1);
    _exit(0);
  }
  waitpid(c, NULL, 0);
  return 0;
}
