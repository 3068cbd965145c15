/* Forks until the world's process limit: EAGAIN, and the count. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  int forks = 0;
  for (;;) {
    pid_t c = fork();
    if (c == 0) _exit(0);
    if (c < 0) {
      printf("forks=%d errno=%s\n", forks, errno == EAGAIN ? "EAGAIN" : strerror(errno));
      break;
    }
    forks++;
    waitpid(c, NULL, 0);
  }
  return 0;
}
