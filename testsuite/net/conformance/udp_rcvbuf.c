/* Rule: a UDP socket's receive queue is bounded by its SO_RCVBUF as Linux
 * accounts it: each datagram costs its skb's truesize, not its length (a
 * 1-byte datagram 832 bytes on loopback, a 1000-byte one 2304), a datagram
 * that does not fit is dropped, and an empty queue takes one whatever its
 * size.  A sender fills a receiver that does not read, then the receiver
 * counts what it holds, for datagram sizes on both sides of the kernel's
 * allocation steps and several buffer sizes, over IPv4 and IPv6; the same
 * queue, drained, holds as many again; the sender never waits (loopback
 * frees its send buffer at once), even with the smallest SO_SNDBUF.  A
 * read datagram's charge is given back late (udp_rmem_release): once those
 * read reach a quarter of SO_RCVBUF, or the reader queue (what had arrived
 * when it was last refilled) is empty; a queue refilled before holds fewer.
 */
#include <fcntl.h>

#include "conf.h"

#define BURST 400
/* A datagram's latency in the simulation is 2 ms at most (and none
 * natively): waits of SETTLE_US each would make this run long natively. */
#define UDP_SETTLE_US 5000

static char buf[65536];

/* Datagrams of `size` a receiver with SO_RCVBUF `rcvbuf` (0: the default)
 * holds after BURST were sent to it; *sent: how many sendto accepted. */
static int held(int family, int size, int rcvbuf, int sndbuf, int *sent) {
  int r = socket(family, SOCK_DGRAM, 0);
  MUST(r >= 0);
  if (rcvbuf) MUST(setsockopt(r, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) == 0);
  struct sockaddr_storage ss;
  socklen_t len;
  memset(&ss, 0, sizeof ss);
  if (family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_loopback;
    len = sizeof *a;
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    len = sizeof *a;
  }
  MUST(bind(r, (struct sockaddr *)&ss, len) == 0);
  MUST(getsockname(r, (struct sockaddr *)&ss, &len) == 0);
  int s = socket(family, SOCK_DGRAM, 0);
  MUST(s >= 0);
  if (sndbuf) MUST(setsockopt(s, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf) == 0);
  MUST(fcntl(r, F_SETFL, O_NONBLOCK) == 0);
  int counts[2];
  for (int round = 0; round < 2; round++) {
    *sent = 0;
    for (int i = 0; i < BURST; i++)
      *sent += sendto(s, buf, (size_t)size, MSG_DONTWAIT, (struct sockaddr *)&ss, len) == size;
    usleep(UDP_SETTLE_US);
    int n = 0;
    while (recv(r, buf, sizeof buf, 0) >= 0) n++;
    MUST(errno == EAGAIN);
    counts[round] = n;
  }
  close(r);
  close(s);
  return counts[0] == counts[1] ? counts[0] : -1;
}

/* Fill with `size`-byte datagrams, read k, fill again: what is held then. */
static int refill(int size, int rcvbuf, int k) {
  int r = socket(AF_INET, SOCK_DGRAM, 0);
  MUST(r >= 0);
  if (rcvbuf) MUST(setsockopt(r, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) == 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  MUST(bind(r, (struct sockaddr *)&a, len) == 0);
  MUST(getsockname(r, (struct sockaddr *)&a, &len) == 0);
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  MUST(s >= 0);
  MUST(fcntl(r, F_SETFL, O_NONBLOCK) == 0);
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < BURST; i++) MUST(sendto(s, buf, (size_t)size, 0, (struct sockaddr *)&a, len) == size);
    usleep(UDP_SETTLE_US);
    for (int i = 0; round == 0 && i < k; i++) MUST(recv(r, buf, sizeof buf, 0) == size);
  }
  int n = 0;
  while (recv(r, buf, sizeof buf, 0) >= 0) n++;
  close(r);
  close(s);
  return n;
}

int main(void) {
  static const int sizes[] = { 1, 100, 197, 198, 500, 646, 1000, 1472, 2000, 4000, 8000, 16004, 16005, 32768, 65000 };
  static const int bufs[] = { 0, 1, 4096, 65536, 100000 };
  int sent;
  for (unsigned b = 0; b < sizeof bufs / sizeof *bufs; b++) {
    printf("ipv4 rcvbuf=%d:", bufs[b]);
    for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++) {
      int n = held(AF_INET, sizes[i], bufs[b], 0, &sent);
      MUST(sent == BURST);
      printf(" %d:%d", sizes[i], n);
    }
    printf("\n");
  }
  static const int sizes6[] = { 1, 184, 185, 632, 633, 1000, 15991, 15992, 65000 };
  printf("ipv6 rcvbuf=0:");
  for (unsigned i = 0; i < sizeof sizes6 / sizeof *sizes6; i++) {
    int n = held(AF_INET6, sizes6[i], 0, 0, &sent);
    MUST(sent == BURST);
    printf(" %d:%d", sizes6[i], n);
  }
  printf("\n");
  static const int reads[] = { 0, 1, 10, 63, 64, 65, 100, 128, 200, 255, 256 };
  printf("refill 1-byte default after k reads:");
  for (unsigned i = 0; i < sizeof reads / sizeof *reads; i++) printf(" %d:%d", reads[i], refill(1, 0, reads[i]));
  printf("\nrefill 100-byte rcvbuf=4096 after k reads:");
  for (int k = 0; k <= 6; k++) printf(" %d:%d", k, refill(100, 4096, k));
  printf("\nrefill 65000-byte default after k reads:");
  for (int k = 0; k <= 3; k++) printf(" %d:%d", k, refill(65000, 0, k));
  printf("\n");
  int n = held(AF_INET, 65507, 0, 1, &sent);
  printf("smallest_sndbuf 65507-byte: sent=%d held=%d\n", sent, n);
  return 0;
}
