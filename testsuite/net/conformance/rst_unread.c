/* Rule: close with unread data sends RST instead of FIN: the peer reads
 * what had arrived, then gets ECONNRESET, then 0; writes then fail with
 * EPIPE. */
#include "conf.h"

int main(void) {
  int c, s;
  pair4(&c, &s);
  SHOW("client_write", write(c, "xyz", 3));
  SHOW("server_write", write(s, "data", 4));
  settle();
  close(s); /* "xyz" unread: RST */
  settle();
  struct pollfd p = { c, POLLIN | POLLOUT | POLLRDHUP, 0 };
  SHOW("poll", poll(&p, 1, 0));
  show_revents("revents", p.revents);
  char buf[16] = {0};
  SHOW("read_data", read(c, buf, sizeof buf));
  printf("data=%s\n", buf);
  SHOW("read_reset", read(c, buf, sizeof buf));
  SHOW("read_after", read(c, buf, sizeof buf));
  SHOW("write_after", send(c, "q", 1, MSG_NOSIGNAL));
  close(c);

  /* SO_LINGER with a zero timeout: close sends RST even with nothing unread. */
  pair4(&c, &s);
  struct linger lg = { 1, 0 };
  SHOW("linger", setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg));
  close(s);
  settle();
  SHOW("read_linger_reset", read(c, buf, sizeof buf));
  int err = -1;
  socklen_t len = sizeof err;
  getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
  printf("so_error_after=%d\n", err);
  close(c);
  return 0;
}
