/* What the simulation does not model fails loudly, naming it, with an
 * errno: never a silent pass-through to the real network. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_PACKET
#define AF_PACKET 17
#endif

static void show(const char *what, int r) {
  printf("%s=%d %s\n", what, r, r < 0 ? strerrorname_np(errno) : "");
}

int main(void) {
  show("packet", socket(AF_PACKET, SOCK_RAW, 0));
  show("raw", socket(AF_INET, SOCK_RAW, IPPROTO_ICMP));
  show("seqpacket", socket(AF_UNIX, SOCK_SEQPACKET, 0));
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in far = { .sin_family = AF_INET, .sin_port = htons(80) };
  far.sin_addr.s_addr = inet_addr("192.0.2.1");
  show("connect_far", connect(s, (struct sockaddr *)&far, sizeof far));
  int v = 1;
  show("sockopt_unknown", setsockopt(s, SOL_SOCKET, 9999, &v, sizeof v));
  close(s);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  show("oob", (int)send(sv[0], "x", 1, MSG_OOB));
  close(sv[0]);
  close(sv[1]);
  return 0;
}
