/* Limits: opening simulated descriptors past net_max_fds fails with EMFILE
 * (as Linux does at RLIMIT_NOFILE) and the run names the limit; closing one
 * makes room again. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void) {
  int fds[64], n = 0, err = 0;
  for (n = 0; n < 64; n++) {
    fds[n] = socket(AF_INET, SOCK_STREAM, 0);
    if (fds[n] < 0) {
      err = errno;
      break;
    }
  }
  printf("opened=%d errno=%s\n", n, strerrorname_np(err));
  int p[2];
  printf("pipe=%d errno=%s\n", pipe(p), strerrorname_np(errno));
  close(fds[0]);
  int again = socket(AF_INET, SOCK_STREAM, 0);
  printf("after_close=%d\n", again >= 0);
  return 0;
}
