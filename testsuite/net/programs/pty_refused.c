/* What of pseudo-terminals is not simulated yet fails loudly: forkpty
 * (ENOSYS), and a pty as a stdio stream by path (ENOTSUP), each with a
 * report naming it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  int m = -1;
  errno = 0;
  printf("forkpty=%d %s\n", (int)forkpty(&m, NULL, NULL, NULL), strerrorname_np(errno));
  FILE *f = fopen("/dev/ptmx", "r+");
  printf("fopen_ptmx=%s\n", f == NULL ? strerrorname_np(errno) : "opened");
  int fd = posix_openpt(O_RDWR | O_NOCTTY);
  printf("posix_openpt_ok=%d\n", fd >= 0);
  return 0;
}
