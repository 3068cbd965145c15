/* Forks until the world's process limit: children that ended but are not
 * waited for keep their slots, so the fork past the limit fails with
 * EAGAIN (the count is printed).  Once they are waited for, their slots
 * are free again: a pre-fork server's stream of short-lived children
 * (each waited for) never reaches the limit. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHORT_LIVED 200

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
  }
  int reaped = 0;
  while (wait(NULL) > 0) reaped++;
  printf("reaped=%d\n", reaped);
  int ok = 0;
  pid_t last = 0;
  for (int i = 0; i < SHORT_LIVED; i++) {
    pid_t c = fork();
    if (c == 0) _exit(i & 0x7f);
    if (c < 0) {
      printf("short-lived fork %d failed: %s\n", i, strerror(errno));
      return 1;
    }
    int st;
    if (waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == (i & 0x7f) && c > last) ok++;
    last = c;
  }
  printf("short_lived=%d of %d (each its own pid)\n", ok, SHORT_LIVED);
  return 0;
}
