/* Rule: SO_REUSEPORT on UDP: sockets that all set it share a port, and
 * each datagram goes to one of them, chosen by its sender: one sender's
 * datagrams all go to the same socket, many senders reach both; a socket
 * bound to the address without the option is refused (EADDRINUSE); a
 * socket connected to the sender is preferred over the group. */
#include "conf.h"

#define SENDERS 32

static int bound(uint16_t port, int reuseport) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  if (reuseport) MUST(setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &reuseport, sizeof reuseport) == 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  if (bind(s, (struct sockaddr *)&a, sizeof a) != 0) {
    int e = errno;
    close(s);
    errno = e;
    return -1;
  }
  return s;
}

static int drain(int s) {
  char buf[16];
  int n = 0;
  while (recv(s, buf, sizeof buf, MSG_DONTWAIT) >= 0) n++;
  return n;
}

int main(void) {
  int a = bound(0, 1);
  struct sockaddr_in to;
  socklen_t len = sizeof to;
  getsockname(a, (struct sockaddr *)&to, &len);
  uint16_t port = ntohs(to.sin_port);
  int b = bound(port, 1);
  printf("second_bind_ok=%d\n", b >= 0);
  SHOW("third_without_option", bound(port, 0));

  int one = socket(AF_INET, SOCK_DGRAM, 0);
  for (int i = 0; i < 5; i++) sendto(one, "x", 1, 0, (struct sockaddr *)&to, sizeof to);
  settle();
  int ga = drain(a), gb = drain(b);
  printf("one_sender total=%d on_one_socket=%d\n", ga + gb, ga == 5 || gb == 5);

  for (int i = 0; i < SENDERS; i++) {
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    sendto(s, "y", 1, 0, (struct sockaddr *)&to, sizeof to);
    close(s);
  }
  settle();
  ga = drain(a);
  gb = drain(b);
  printf("many_senders total=%d both_got_some=%d\n", ga + gb, ga > 0 && gb > 0);

  /* A member connected to the sender takes its datagrams. */
  struct sockaddr_in from;
  len = sizeof from;
  getsockname(one, (struct sockaddr *)&from, &len);
  SHOW("connect_b_to_sender", connect(b, (struct sockaddr *)&from, sizeof from));
  for (int i = 0; i < 5; i++) sendto(one, "z", 1, 0, (struct sockaddr *)&to, sizeof to);
  settle();
  ga = drain(a);
  gb = drain(b);
  printf("connected a=%d b=%d\n", ga, gb);
  return 0;
}
