/* Rule: SO_RXQ_OVFL reports a UDP socket's drops as Linux counts them
 * (sk_drops, one per datagram its full queue refused): a datagram read
 * carries, as an SOL_SOCKET/SO_RXQ_OVFL control message, the count as it
 * was when the datagram was queued (none while it is 0), if the option was
 * on then and is on at the read; a control buffer too short for it gets
 * MSG_CTRUNC.
 */
#include <fcntl.h>
#include <stdint.h>

#include "conf.h"

static int r, s;
static struct sockaddr_in addr;

static void burst(int n) {
  char b[1] = { 0 };
  for (int i = 0; i < n; i++) MUST(sendto(s, b, 1, 0, (struct sockaddr *)&addr, sizeof addr) == 1);
  usleep(5000); /* a datagram's simulated latency is 2 ms at most */
}

/* Reads one datagram and prints its control messages. */
static void show(const char *label, size_t control) {
  char b[100], ctl[64];
  struct iovec io = { b, sizeof b };
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = &io;
  m.msg_iovlen = 1;
  m.msg_control = ctl;
  m.msg_controllen = control;
  ssize_t n = recvmsg(r, &m, 0);
  printf("%s: n=%zd controllen=%zu ctrunc=%d", label, n, (size_t)m.msg_controllen, (m.msg_flags & MSG_CTRUNC) != 0);
  if (m.msg_controllen >= sizeof(struct cmsghdr))
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
      uint32_t v = 0;
      if (c->cmsg_len >= CMSG_LEN(sizeof v)) memcpy(&v, CMSG_DATA(c), sizeof v);
      printf(" cmsg level=%d type=%d len=%zu drops=%u", c->cmsg_level, c->cmsg_type, (size_t)c->cmsg_len, v);
    }
  printf("\n");
}

static void set_ovfl(int on) { MUST(setsockopt(r, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on) == 0); }

int main(void) {
  r = socket(AF_INET, SOCK_DGRAM, 0);
  MUST(r >= 0);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  MUST(bind(r, (struct sockaddr *)&addr, len) == 0);
  MUST(getsockname(r, (struct sockaddr *)&addr, &len) == 0);
  s = socket(AF_INET, SOCK_DGRAM, 0);
  MUST(s >= 0);
  int v = -1;
  socklen_t vl = sizeof v;
  MUST(getsockopt(r, SOL_SOCKET, SO_RXQ_OVFL, &v, &vl) == 0);
  printf("default=%d\n", v);
  set_ovfl(1);
  MUST(getsockopt(r, SOL_SOCKET, SO_RXQ_OVFL, &v, &vl) == 0);
  printf("set=%d\n", v);
  MUST(fcntl(r, F_SETFL, O_NONBLOCK) == 0);
  burst(300); /* 256 held (832 bytes each), 44 dropped */
  show("queued_before_drops", 64);
  char b[1];
  for (int i = 0; i < 255; i++) MUST(recv(r, b, 1, 0) == 1);
  burst(1);
  show("queued_after_44", 64);
  burst(300); /* 44 more dropped */
  show("first_of_next_burst", 64);
  set_ovfl(0);
  show("option_off_at_read", 64);
  set_ovfl(1);
  show("option_on_again", 64);
  show("control_20", 20);
  show("control_18", 18);
  show("control_8", 8);
  while (recv(r, b, 1, 0) == 1) {
  }
  set_ovfl(0);
  burst(1);
  set_ovfl(1);
  show("queued_with_option_off", 64);
  burst(1);
  show("last", 64);
  return 0;
}
