/* Rule: socket options read back as Linux reports them; unknown levels and
 * names fail with ENOPROTOOPT; bind conflicts give EADDRINUSE unless
 * SO_REUSEPORT is on both. */
#include <fcntl.h>

#include "conf.h"

static void get_int(const char *label, int fd, int level, int name) {
  int v = -1;
  socklen_t len = sizeof v;
  int r = getsockopt(fd, level, name, &v, &len);
  if (r < 0) printf("%s=-1 %s\n", label, ename(errno));
  else printf("%s=%d len=%u\n", label, v, (unsigned)len);
}

int main(void) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  get_int("so_type", s, SOL_SOCKET, SO_TYPE);
  get_int("so_domain", s, SOL_SOCKET, SO_DOMAIN);
  get_int("so_protocol", s, SOL_SOCKET, SO_PROTOCOL);
  get_int("so_error", s, SOL_SOCKET, SO_ERROR);
  get_int("so_acceptconn", s, SOL_SOCKET, SO_ACCEPTCONN);
  get_int("so_reuseaddr_default", s, SOL_SOCKET, SO_REUSEADDR);
  int one = 1;
  SHOW("set_reuseaddr", setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one));
  get_int("so_reuseaddr", s, SOL_SOCKET, SO_REUSEADDR);
  SHOW("set_keepalive", setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one));
  get_int("so_keepalive", s, SOL_SOCKET, SO_KEEPALIVE);
  SHOW("set_nodelay", setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));
  get_int("tcp_nodelay", s, IPPROTO_TCP, TCP_NODELAY);
  int big = 65536;
  SHOW("set_rcvbuf", setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof big));
  get_int("so_rcvbuf", s, SOL_SOCKET, SO_RCVBUF);
  SHOW("set_sndbuf", setsockopt(s, SOL_SOCKET, SO_SNDBUF, &big, sizeof big));
  get_int("so_sndbuf", s, SOL_SOCKET, SO_SNDBUF);
  struct linger lg = { 1, 5 };
  SHOW("set_linger", setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg));
  struct linger lg2 = { 0, 0 };
  socklen_t lglen = sizeof lg2;
  SHOW("get_linger", getsockopt(s, SOL_SOCKET, SO_LINGER, &lg2, &lglen));
  printf("linger=%d,%d\n", lg2.l_onoff, lg2.l_linger);
  struct timeval tv = { 2, 500000 }, tv2 = { 0, 0 };
  socklen_t tvlen = sizeof tv2;
  SHOW("set_rcvtimeo", setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
  SHOW("get_rcvtimeo", getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv2, &tvlen));
  printf("rcvtimeo=%ld.%06ld\n", (long)tv2.tv_sec, (long)tv2.tv_usec);
  SHOW("set_unknown_level", setsockopt(s, 12345, 1, &one, sizeof one));
  get_int("get_unknown_level", s, 12345, 1);
  SHOW("set_short", setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, 2));
  SHOW("set_so_error", setsockopt(s, SOL_SOCKET, SO_ERROR, &one, sizeof one));
  printf("getfd=%d\n", fcntl(s, F_GETFD));
  SHOW("setfd", fcntl(s, F_SETFD, 0));
  printf("getfd=%d\n", fcntl(s, F_GETFD));

  /* bind conflicts */
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int b1 = socket(AF_INET, SOCK_STREAM, 0);
  SHOW("bind1", bind(b1, (struct sockaddr *)&a, sizeof a));
  socklen_t alen = sizeof a;
  getsockname(b1, (struct sockaddr *)&a, &alen);
  SHOW("bind1_again", bind(b1, (struct sockaddr *)&a, sizeof a));
  SHOW("listen1", listen(b1, 4));
  int b2 = socket(AF_INET, SOCK_STREAM, 0);
  SHOW("bind2_same_port", bind(b2, (struct sockaddr *)&a, sizeof a));
  struct sockaddr_in any = a;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  SHOW("bind2_any_same_port", bind(b2, (struct sockaddr *)&any, sizeof any));
  close(b2);
  close(b1);
  int r1 = socket(AF_INET, SOCK_STREAM, 0), r2 = socket(AF_INET, SOCK_STREAM, 0);
  setsockopt(r1, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  setsockopt(r2, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  a.sin_port = 0;
  SHOW("reuseport_bind1", bind(r1, (struct sockaddr *)&a, sizeof a));
  alen = sizeof a;
  getsockname(r1, (struct sockaddr *)&a, &alen);
  SHOW("reuseport_bind2", bind(r2, (struct sockaddr *)&a, sizeof a));
  SHOW("reuseport_listen1", listen(r1, 4));
  SHOW("reuseport_listen2", listen(r2, 4));
  close(r1);
  close(r2);
  struct sockaddr_in far = a;
  far.sin_addr.s_addr = inet_addr("192.0.2.1"); /* TEST-NET-1: not an address of this host */
  int f = socket(AF_INET, SOCK_STREAM, 0);
  SHOW("bind_foreign", bind(f, (struct sockaddr *)&far, sizeof far));
  close(f);
  struct sockaddr_in6 six;
  memset(&six, 0, sizeof six);
  six.sin6_family = AF_INET6;
  int g = socket(AF_INET, SOCK_STREAM, 0);
  SHOW("bind_wrong_family", bind(g, (struct sockaddr *)&six, sizeof six));
  close(g);
  close(s);
  return 0;
}
