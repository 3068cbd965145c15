/* SO_RCVBUF/SO_SNDBUF past the ceiling: the simulation is a default Linux
 * (rmem_max = wmem_max = 212992), whatever the host's sysctls say, so
 * this is checked in the simulation only. */
#include <stdio.h>
#include <sys/socket.h>

static int get(int fd, int name) {
  int v = -1;
  socklen_t len = sizeof v;
  getsockopt(fd, SOL_SOCKET, name, &v, &len);
  return v;
}

int main(void) {
  int t = socket(AF_INET, SOCK_STREAM, 0);
  int big = 1 << 20, neg = -1;
  setsockopt(t, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  setsockopt(t, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  printf("capped rcvbuf=%d sndbuf=%d\n", get(t, SO_RCVBUF), get(t, SO_SNDBUF));
  setsockopt(t, SOL_SOCKET, SO_RCVBUF, &neg, sizeof neg);
  printf("negative rcvbuf=%d\n", get(t, SO_RCVBUF));
  return 0;
}
