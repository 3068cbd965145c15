/* Rule: AF_INET6 on ::1, and a dual-stack wildcard listener accepting an
 * IPv4 client (its address v4-mapped); IPV6_V6ONLY turns that off. */
#include "conf.h"

static void show6(const char *label, const struct sockaddr_in6 *a) {
  char text[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
  printf("%s=%s\n", label, text);
}

int main(void) {
  struct sockaddr_in6 a;
  memset(&a, 0, sizeof a);
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  int l = socket(AF_INET6, SOCK_STREAM, 0);
  SHOW("bind", bind(l, (struct sockaddr *)&a, sizeof a));
  socklen_t len = sizeof a;
  getsockname(l, (struct sockaddr *)&a, &len);
  show6("bound", &a);
  SHOW("listen", listen(l, 4));
  int c = socket(AF_INET6, SOCK_STREAM, 0);
  SHOW("connect", connect(c, (struct sockaddr *)&a, sizeof a));
  struct sockaddr_in6 peer;
  len = sizeof peer;
  int s = accept(l, (struct sockaddr *)&peer, &len);
  printf("accept_ok=%d len=%u\n", s >= 0, (unsigned)len);
  show6("peer", &peer);
  write(c, "six", 3);
  char buf[8] = {0};
  SHOW("read", read_n(s, buf, 3));
  close(s);
  close(c);
  close(l);

  /* dual stack */
  struct sockaddr_in6 any;
  memset(&any, 0, sizeof any);
  any.sin6_family = AF_INET6;
  any.sin6_addr = in6addr_any;
  int d = socket(AF_INET6, SOCK_STREAM, 0);
  SHOW("bind_any", bind(d, (struct sockaddr *)&any, sizeof any));
  len = sizeof any;
  getsockname(d, (struct sockaddr *)&any, &len);
  SHOW("listen_any", listen(d, 4));
  struct sockaddr_in v4;
  memset(&v4, 0, sizeof v4);
  v4.sin_family = AF_INET;
  v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  v4.sin_port = any.sin6_port;
  int c4 = socket(AF_INET, SOCK_STREAM, 0);
  SHOW("connect_v4", connect(c4, (struct sockaddr *)&v4, sizeof v4));
  len = sizeof peer;
  int s4 = accept(d, (struct sockaddr *)&peer, &len);
  printf("accept_v4_ok=%d\n", s4 >= 0);
  show6("v4_peer", &peer);
  struct sockaddr_in6 me;
  len = sizeof me;
  getsockname(s4, (struct sockaddr *)&me, &len);
  show6("v4_local", &me);
  close(s4);
  close(c4);
  close(d);

  int o = socket(AF_INET6, SOCK_STREAM, 0);
  int one = 1;
  SHOW("v6only", setsockopt(o, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one));
  memset(&any, 0, sizeof any);
  any.sin6_family = AF_INET6;
  SHOW("bind_v6only", bind(o, (struct sockaddr *)&any, sizeof any));
  len = sizeof any;
  getsockname(o, (struct sockaddr *)&any, &len);
  listen(o, 4);
  v4.sin_port = any.sin6_port;
  int c5 = socket(AF_INET, SOCK_STREAM, 0);
  SHOW("connect_v4_to_v6only", connect(c5, (struct sockaddr *)&v4, sizeof v4));
  close(c5);
  close(o);
  return 0;
}
