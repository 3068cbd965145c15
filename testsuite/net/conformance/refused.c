/* Rule: connect to a port with no listener fails with ECONNREFUSED; a
 * non-blocking connect gives EINPROGRESS, then the socket polls ready with
 * an error and SO_ERROR reports ECONNREFUSED once. */
#include <fcntl.h>

#include "conf.h"

int main(void) {
  /* A port that was free a moment ago and has no listener. */
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int b = socket(AF_INET, SOCK_STREAM, 0);
  MUST(bind(b, (struct sockaddr *)&a, sizeof a) == 0);
  socklen_t len = sizeof a;
  MUST(getsockname(b, (struct sockaddr *)&a, &len) == 0);
  /* bound, not listening: connections to it are refused */
  int c = socket(AF_INET, SOCK_STREAM, 0);
  SHOW("connect", connect(c, (struct sockaddr *)&a, sizeof a));
  char x;
  SHOW("read_after_refused", read(c, &x, 1));
  close(c);

  int n = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  SHOW("nb_connect", connect(n, (struct sockaddr *)&a, sizeof a));
  struct pollfd p = { n, POLLOUT, 0 };
  SHOW("poll", poll(&p, 1, 5000));
  show_revents("revents", p.revents);
  int err = -1;
  socklen_t elen = sizeof err;
  SHOW("getsockopt", getsockopt(n, SOL_SOCKET, SO_ERROR, &err, &elen));
  printf("so_error=%s\n", err ? ename(err) : "0");
  err = -1;
  SHOW("getsockopt_again", getsockopt(n, SOL_SOCKET, SO_ERROR, &err, &elen));
  printf("so_error_again=%d\n", err);
  close(n);
  close(b);
  return 0;
}
