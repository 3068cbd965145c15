/* Rule: a unix datagram sender is bounded as Linux bounds it
 * (unix_dgram_sendmsg): by the receiver's queue, full once it holds more
 * than net.unix.max_dgram_qlen (10 here) datagrams unless the receiver is
 * the sender or its peer is the sender, and by its own SO_SNDBUF, each unread datagram
 * charged its skb's truesize (768 bytes for up to 192, 2304 for 1000...),
 * one more sent while the charge is under the buffer.  A datagram longer
 * than SO_SNDBUF less 32 is EMSGSIZE; the receiver's SO_RCVBUF plays no
 * part.  Non-blocking senders count what gets in before EAGAIN; a drained
 * sender is writable (poll) again once its charge is a quarter of its
 * buffer; SIOCOUTQ reports the charge.  A blocking sender waits for its
 * charge to drop, and nothing is lost or reordered.
 */
#include <linux/sockios.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/un.h>

#include "conf.h"

static char buf[300000];
static char path[108];

/* Two unix datagram sockets, sv[0] sending to sv[1]: a socketpair (each
 * the other's peer), or sv[0] connected to sv[1]'s path (sv[1] unconnected). */
static void make(int sv[2], bool pair) {
  if (pair) {
    MUST(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
    return;
  }
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  snprintf(path, sizeof path, "/tmp/detsim_conf_udb_%d", (int)getpid());
  memcpy(a.sun_path, path, sizeof path);
  unlink(a.sun_path);
  sv[1] = socket(AF_UNIX, SOCK_DGRAM, 0);
  MUST(sv[1] >= 0);
  MUST(bind(sv[1], (struct sockaddr *)&a, sizeof a) == 0);
  sv[0] = socket(AF_UNIX, SOCK_DGRAM, 0);
  MUST(sv[0] >= 0);
  MUST(connect(sv[0], (struct sockaddr *)&a, sizeof a) == 0);
}

static void set(int fd, int name, int v) { MUST(setsockopt(fd, SOL_SOCKET, name, &v, sizeof v) == 0); }

/* Datagrams of `size` that get in before the first failure; "E" and its
 * errno name are printed with the count. */
static void fill(bool pair, int size, int sndbuf, int rcvbuf) {
  int sv[2];
  make(sv, pair);
  if (sndbuf) set(sv[0], SO_SNDBUF, sndbuf);
  if (rcvbuf) set(sv[1], SO_RCVBUF, rcvbuf);
  int n = 0;
  while (send(sv[0], buf, (size_t)size, MSG_DONTWAIT) == size) n++;
  printf(" %d:%d%s", size, n, errno == EAGAIN ? "" : ename(errno));
  close(sv[0]);
  close(sv[1]);
}

/* A blocking sender on a socketpair waits for its charge to drop. */
#define BLOCKING_SENDS 300
static int bsv[2];
static _Atomic int bsent;
static void *blocking_sender(void *arg) {
  (void)arg;
  char d[1000];
  memset(d, 'd', sizeof d);
  for (int i = 0; i < BLOCKING_SENDS; i++) {
    memcpy(d, &i, sizeof i);
    MUST(send(bsv[0], d, sizeof d, 0) == (ssize_t)sizeof d);
    bsent++;
  }
  return NULL;
}

int main(void) {
  static const int sizes[] = { 1, 192, 193, 1000, 4000, 10000, 16064, 16065, 30000, 65000, 100000, 200000, 212960, 212961 };
  static const int bufs[] = { 0, 1, 4096, 20000, 100000 };
  for (int pair = 0; pair < 2; pair++)
    for (unsigned b = 0; b < sizeof bufs / sizeof *bufs; b++) {
      printf("%s sndbuf=%d:", pair ? "socketpair" : "connected", bufs[b]);
      for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++) fill(pair, sizes[i], bufs[b], 0);
      printf("\n");
    }
  /* A socket sending to its own path: held by its send buffer only. */
  {
    int sv[2];
    make(sv, false);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    memcpy(a.sun_path, path, sizeof path);
    int n = 0;
    while (sendto(sv[1], buf, 100, MSG_DONTWAIT, (struct sockaddr *)&a, sizeof a) == 100) n++;
    printf("to_self 100:%d%s\n", n, errno == EAGAIN ? "" : ename(errno));
    close(sv[0]);
    close(sv[1]);
  }
  printf("receiver rcvbuf=1:");
  fill(false, 100, 0, 1);
  fill(true, 1000, 0, 1);
  printf("\n");

  /* The charge, and when a drained sender is writable again. */
  int sv[2];
  make(sv, true);
  MUST(send(sv[0], buf, 1000, 0) == 1000);
  int q = -1;
  MUST(ioctl(sv[0], SIOCOUTQ, &q) == 0);
  printf("outq_after_one_1000=%d\n", q);
  int n = 1;
  while (send(sv[0], buf, 1000, MSG_DONTWAIT) == 1000) n++;
  struct pollfd p = { .fd = sv[0], .events = POLLOUT };
  SHOW("writable_when_full", poll(&p, 1, 0));
  int reads = 0;
  while (poll(&p, 1, 0) == 0) {
    MUST(recv(sv[1], buf, sizeof buf, 0) == 1000);
    reads++;
  }
  printf("held=%d writable_after_reads=%d\n", n, reads);
  MUST(ioctl(sv[0], SIOCOUTQ, &q) == 0);
  printf("outq_then=%d\n", q);
  /* A closed receiver's queue gives the charge back. */
  int sv2[2];
  make(sv2, false);
  for (int i = 0; i < 5; i++) MUST(send(sv2[0], buf, 100, 0) == 100);
  MUST(ioctl(sv2[0], SIOCOUTQ, &q) == 0);
  printf("outq_five_100=%d\n", q);
  close(sv2[1]);
  MUST(ioctl(sv2[0], SIOCOUTQ, &q) == 0);
  printf("outq_receiver_closed=%d\n", q);
  close(sv2[0]);
  unlink(path);

  MUST(socketpair(AF_UNIX, SOCK_DGRAM, 0, bsv) == 0);
  pthread_t t;
  MUST(pthread_create(&t, NULL, blocking_sender, NULL) == 0);
  settle();
  int blocked_at = bsent, in_order = 1;
  for (int i = 0; i < BLOCKING_SENDS; i++) {
    int idx = -1;
    MUST(recv(bsv[1], buf, sizeof buf, 0) == 1000);
    memcpy(&idx, buf, sizeof idx);
    in_order &= idx == i;
  }
  MUST(pthread_join(t, NULL) == 0);
  printf("blocking_sender blocked_at=%d received=%d in_order=%d\n", blocked_at, BLOCKING_SENDS, in_order);
  close(bsv[0]);
  close(bsv[1]);
  return 0;
}
