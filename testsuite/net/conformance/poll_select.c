/* Rule: poll and select report readiness as Linux does: a listener is
 * readable when a connection is in its backlog, a socket when data or FIN
 * arrived, writable while its buffer has room; select's sets follow. */
#include <sys/select.h>

#include "conf.h"

int main(void) {
  struct sockaddr_in a;
  int l = listener4(&a, 4);
  struct pollfd p = { l, POLLIN, 0 };
  SHOW("listener_idle", poll(&p, 1, 0));
  int fresh = socket(AF_INET, SOCK_STREAM, 0);
  struct pollfd fp = { fresh, POLLIN | POLLOUT, 0 };
  SHOW("fresh_socket", poll(&fp, 1, 0));
  show_revents("fresh_revents", fp.revents);
  close(fresh);
  int c = connect4(&a);
  SHOW("listener_ready", poll(&p, 1, 5000));
  show_revents("listener_revents", p.revents);
  int s = accept(l, NULL, NULL);
  struct pollfd q[2] = { { c, POLLIN | POLLOUT, 0 }, { s, POLLIN, 0 } };
  SHOW("idle_pair", poll(q, 2, 0));
  show_revents("client", q[0].revents);
  show_revents("server", q[1].revents);
  write(c, "ping", 4);
  SHOW("server_readable", poll(&q[1], 1, 5000));
  show_revents("server", q[1].revents);
  fd_set rd, wr;
  FD_ZERO(&rd);
  FD_ZERO(&wr);
  FD_SET(s, &rd);
  FD_SET(c, &rd);
  FD_SET(c, &wr);
  int maxfd = (s > c ? s : c) + 1;
  struct timeval tv = { 5, 0 };
  SHOW("select", select(maxfd, &rd, &wr, NULL, &tv));
  printf("select_s_read=%d select_c_read=%d select_c_write=%d\n", FD_ISSET(s, &rd) != 0, FD_ISSET(c, &rd) != 0,
         FD_ISSET(c, &wr) != 0);
  char buf[8];
  read(s, buf, sizeof buf);
  FD_ZERO(&rd);
  FD_SET(s, &rd);
  struct timeval zero = { 0, 0 };
  SHOW("select_empty", select(s + 1, &rd, NULL, NULL, &zero));
  close(c);
  SHOW("server_fin", poll(&q[1], 1, 5000));
  show_revents("server", q[1].revents);
  struct pollfd neg = { -1, POLLIN, 0 };
  SHOW("negative_fd", poll(&neg, 1, 0));
  close(s);
  close(l);
  return 0;
}
