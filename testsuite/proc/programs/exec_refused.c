/* exec in a forked child is not simulated yet: it fails with ENOSYS and an
 * error naming the binary, and the child stays in the world (it _exits
 * 127, which its parent sees). */
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  pid_t c = fork();
  if (c == 0) {
    execl("/bin/true", "true", (char *)NULL);
    printf("execl=-1 enosys=%d\n", errno == ENOSYS);
    fflush(stdout);
    _exit(127);
  }
  int st;
  waitpid(c, &st, 0);
  printf("child_status=%d\n", WEXITSTATUS(st));
  return 0;
}
