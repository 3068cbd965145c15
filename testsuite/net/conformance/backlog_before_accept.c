/* Rule: connect completes into the listener's backlog before any accept;
 * bytes sent before the accept are there to read after it. */
#include "conf.h"

int main(void) {
  struct sockaddr_in a;
  int l = listener4(&a, 4);
  int c = socket(AF_INET, SOCK_STREAM, 0);
  SHOW("connect", connect(c, (struct sockaddr *)&a, sizeof a));
  SHOW("write_before_accept", write(c, "hello", 5));
  int c2 = socket(AF_INET, SOCK_STREAM, 0);
  SHOW("second_connect", connect(c2, (struct sockaddr *)&a, sizeof a));
  struct sockaddr_in peer;
  socklen_t plen = sizeof peer;
  int s = accept(l, (struct sockaddr *)&peer, &plen);
  printf("accept_ok=%d addrlen=%u\n", s >= 0, (unsigned)plen);
  struct sockaddr_in local;
  socklen_t llen = sizeof local;
  MUST(getsockname(c, (struct sockaddr *)&local, &llen) == 0);
  printf("peer_is_client=%d peer_addr=%s\n", peer.sin_port == local.sin_port, inet_ntoa(peer.sin_addr));
  char buf[16] = {0};
  SHOW("read", read_n(s, buf, 5));
  printf("data=%s\n", buf);
  struct sockaddr_in sp;
  socklen_t splen = sizeof sp;
  MUST(getpeername(c, (struct sockaddr *)&sp, &splen) == 0);
  printf("client_peer_is_listener=%d\n", sp.sin_port == a.sin_port);
  int s2 = accept(l, NULL, NULL);
  printf("second_accept_ok=%d\n", s2 >= 0);
  close(s);
  close(s2);
  close(c);
  close(c2);
  close(l);
  return 0;
}
