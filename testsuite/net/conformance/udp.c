/* Rule: UDP within the node: a datagram arrives whole with its sender's
 * address; a short buffer truncates it (MSG_TRUNC); datagrams from one
 * sender arrive in order; a connected socket filters its peer and hears
 * ECONNREFUSED after sending to a port nobody is bound to. */
#include <fcntl.h>
#include <sys/ioctl.h>

#include "conf.h"

int main(void) {
  int r = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in ra = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  SHOW("bind", bind(r, (struct sockaddr *)&ra, sizeof ra));
  socklen_t len = sizeof ra;
  getsockname(r, (struct sockaddr *)&ra, &len);
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  SHOW("sendto", sendto(s, "hello", 5, 0, (struct sockaddr *)&ra, sizeof ra));
  SHOW("sendto2", sendto(s, "world!", 6, 0, (struct sockaddr *)&ra, sizeof ra));
  SHOW("sendto_empty", sendto(s, "", 0, 0, (struct sockaddr *)&ra, sizeof ra));
  struct sockaddr_in sa;
  len = sizeof sa;
  getsockname(s, (struct sockaddr *)&sa, &len);
  struct pollfd p = { r, POLLIN, 0 };
  SHOW("poll", poll(&p, 1, 5000));
  int avail = -1;
  ioctl(r, FIONREAD, &avail);
  printf("fionread=%d\n", avail);
  char buf[16] = {0};
  struct sockaddr_in from;
  len = sizeof from;
  SHOW("recvfrom", recvfrom(r, buf, sizeof buf, 0, (struct sockaddr *)&from, &len));
  printf("data=%s from_sender=%d fromlen=%u addr=%s\n", buf, from.sin_port == sa.sin_port, (unsigned)len,
         inet_ntoa(from.sin_addr));
  memset(buf, 0, sizeof buf);
  struct iovec iov = { buf, 3 };
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  SHOW("recvmsg_short", recvmsg(r, &m, 0));
  printf("data=%s truncated=%d\n", buf, (m.msg_flags & MSG_TRUNC) != 0);
  SHOW("recv_empty_datagram", recv(r, buf, sizeof buf, 0));
  SHOW("recv_nothing", recv(r, buf, sizeof buf, MSG_DONTWAIT));
  SHOW("sendto", sendto(s, "abcdef", 6, 0, (struct sockaddr *)&ra, sizeof ra));
  settle();
  SHOW("recv_trunc_flag", recv(r, buf, 2, MSG_TRUNC));
  SHOW("send_unconnected", send(s, "x", 1, 0));

  /* connected sockets */
  SHOW("connect", connect(s, (struct sockaddr *)&ra, sizeof ra));
  struct sockaddr_in peer;
  len = sizeof peer;
  SHOW("getpeername", getpeername(s, (struct sockaddr *)&peer, &len));
  printf("peer_is_receiver=%d\n", peer.sin_port == ra.sin_port);
  for (int i = 0; i < 5; i++) {
    char msg[8];
    int n = snprintf(msg, sizeof msg, "m%d", i);
    send(s, msg, (size_t)n, 0);
  }
  settle();
  for (int i = 0; i < 5; i++) {
    memset(buf, 0, sizeof buf);
    recv(r, buf, sizeof buf, 0);
    printf("%s ", buf);
  }
  printf("\n");
  int other = socket(AF_INET, SOCK_DGRAM, 0);
  SHOW("connect_receiver", connect(r, (struct sockaddr *)&sa, sizeof sa));
  SHOW("sendto_filtered", sendto(other, "no", 2, 0, (struct sockaddr *)&ra, sizeof ra));
  SHOW("send_from_peer", send(s, "yes", 3, 0));
  settle();
  memset(buf, 0, sizeof buf);
  SHOW("recv_connected", recv(r, buf, sizeof buf, MSG_DONTWAIT));
  printf("data=%s\n", buf);
  SHOW("recv_connected_empty", recv(r, buf, sizeof buf, MSG_DONTWAIT));
  close(r); /* nobody on that port now */
  SHOW("send_to_closed", send(s, "?", 1, 0));
  settle();
  SHOW("send_after_refused", send(s, "?", 1, 0));
  SHOW("send_again", send(s, "?", 1, 0));
  settle();
  SHOW("recv_refused", recv(s, buf, sizeof buf, MSG_DONTWAIT));
  struct sockaddr unspec = { .sa_family = AF_UNSPEC };
  SHOW("disconnect", connect(s, &unspec, sizeof unspec));
  len = sizeof peer;
  SHOW("getpeername_after", getpeername(s, (struct sockaddr *)&peer, &len));
  SHOW("listen", listen(s, 1));
  close(other);
  close(s);
  return 0;
}
