/* A write to a closed connection with SIGPIPE at its default action ends
 * the run as a crash with signal=SIGPIPE, as the process would die. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void) {
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  close(sv[1]);
  printf("writing\n");
  fflush(stdout);
  write(sv[0], "x", 1);
  printf("not reached\n");
  return 0;
}
