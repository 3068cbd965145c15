/* Pseudo-terminals are not simulated yet: every way to make one is
 * reported by name and fails with ENOENT, as on a machine without ptys. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void show(const char *label, long r) {
  if (r < 0) printf("%s=-1 %s\n", label, strerrorname_np(errno));
  else printf("%s=%ld\n", label, r);
}

int main(void) {
  show("posix_openpt", posix_openpt(O_RDWR | O_NOCTTY));
  show("getpt", getpt());
  show("open_ptmx", open("/dev/ptmx", O_RDWR | O_NOCTTY));
  FILE *f = fopen("/dev/ptmx", "r+");
  printf("fopen_ptmx=%s\n", f == NULL ? strerrorname_np(errno) : "opened");
  int m = -1, s = -1;
  show("openpty", openpty(&m, &s, NULL, NULL, NULL));
  show("forkpty", forkpty(&m, NULL, NULL, NULL));
  return 0;
}
