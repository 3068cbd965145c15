/* Rule: a socket, a pipe or an eventfd is no terminal: isatty is 0 with
 * ENOTTY, tcgetattr and tcsetattr fail with ENOTTY. */
#include <sys/eventfd.h>
#include <termios.h>

#include "conf.h"

static void ask(const char *what, int fd) {
  errno = 0;
  int t = isatty(fd);
  printf("%s isatty=%d %s\n", what, t, ename(errno));
  struct termios tio;
  memset(&tio, 0, sizeof tio);
  errno = 0;
  int g = tcgetattr(fd, &tio);
  printf("%s tcgetattr=%d %s\n", what, g, ename(errno));
  errno = 0;
  int s = tcsetattr(fd, TCSANOW, &tio);
  printf("%s tcsetattr=%d %s\n", what, s, ename(errno));
}

int main(void) {
  int c, s;
  pair4(&c, &s);
  ask("tcp", c);
  int p[2];
  MUST(pipe(p) == 0);
  ask("pipe", p[0]);
  int e = eventfd(0, 0);
  ask("eventfd", e);
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  ask("udp", u);
  return 0;
}
