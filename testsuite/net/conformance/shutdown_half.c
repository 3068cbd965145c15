/* Rule: shutdown(SHUT_WR) half-closes: the peer reads 0, can still send,
 * and this end still reads. */
#include "conf.h"

int main(void) {
  int c, s;
  pair4(&c, &s);
  SHOW("write", write(c, "req", 3));
  SHOW("shutdown_wr", shutdown(c, SHUT_WR));
  char buf[16] = {0};
  SHOW("server_read", read_n(s, buf, 3));
  printf("data=%s\n", buf);
  SHOW("server_read_eof", read(s, buf, sizeof buf));
  struct pollfd p = { s, POLLIN | POLLOUT | POLLRDHUP, 0 };
  SHOW("server_poll", poll(&p, 1, 0));
  show_revents("server_revents", p.revents);
  SHOW("server_write", write(s, "reply", 5));
  memset(buf, 0, sizeof buf);
  SHOW("client_read", read_n(c, buf, 5));
  printf("data=%s\n", buf);
  SHOW("client_write_after_shutdown", send(c, "x", 1, MSG_NOSIGNAL));
  SHOW("server_close", close(s));
  SHOW("client_read_eof", read(c, buf, sizeof buf));
  settle();
  p.fd = c;
  SHOW("client_poll", poll(&p, 1, 0));
  show_revents("client_revents", p.revents);
  SHOW("shutdown_bad_how", shutdown(c, 7));
  int fresh = socket(AF_INET, SOCK_STREAM, 0);
  SHOW("shutdown_unconnected", shutdown(fresh, SHUT_RDWR));
  close(fresh);
  close(c);
  return 0;
}
