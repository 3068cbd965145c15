/* Rule: a unix stream writer is bounded by its own SO_SNDBUF as Linux
 * bounds it (unix_stream_sendmsg): each send goes out as pieces (skbs) of
 * at most half the buffer less 64 bytes (and 36544), each charged to the
 * writer its truesize until the reader has taken all of it, one more piece
 * going while the charge is under the buffer; the reader's SO_RCVBUF plays
 * no part.  So the bytes a non-blocking writer gets in before EAGAIN
 * depend on the size of its writes: printed for several sizes, with the
 * default and set buffers, on a socketpair and on an accepted connection
 * (which has the default buffers, whatever its listener's).  A drained
 * writer is writable (poll) again once its charge is a quarter of its
 * buffer; SIOCOUTQ reports the charge, which a reader closing gives back.
 */
#include <linux/sockios.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/un.h>

#include "conf.h"

static char buf[1 << 20];

static int get(int fd, int name) {
  int v = -1;
  socklen_t len = sizeof v;
  MUST(getsockopt(fd, SOL_SOCKET, name, &v, &len) == 0);
  return v;
}

static void set(int fd, int name, int v) { MUST(setsockopt(fd, SOL_SOCKET, name, &v, sizeof v) == 0); }

/* sv[0] writes to sv[1]: a socketpair, or a connection to a listener
 * (whose own SO_SNDBUF is set, to show the accepted end does not take it). */
static void make(int sv[2], bool pair) {
  if (pair) {
    MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    return;
  }
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  snprintf(a.sun_path, sizeof a.sun_path, "/tmp/detsim_conf_usb_%d", (int)getpid());
  unlink(a.sun_path);
  int l = socket(AF_UNIX, SOCK_STREAM, 0);
  MUST(l >= 0);
  set(l, SO_SNDBUF, 5000);
  MUST(bind(l, (struct sockaddr *)&a, sizeof a) == 0);
  MUST(listen(l, 1) == 0);
  sv[0] = socket(AF_UNIX, SOCK_STREAM, 0);
  MUST(sv[0] >= 0);
  MUST(connect(sv[0], (struct sockaddr *)&a, sizeof a) == 0);
  sv[1] = accept(l, NULL, NULL);
  MUST(sv[1] >= 0);
  close(l);
  MUST(unlink(a.sun_path) == 0);
}

/* Bytes written in `chunk`-byte writes before EAGAIN. */
static long fill(bool pair, bool reverse, int chunk, int sndbuf, int rcvbuf) {
  int sv[2];
  make(sv, pair);
  int w = reverse ? sv[1] : sv[0], r = reverse ? sv[0] : sv[1];
  if (sndbuf) set(w, SO_SNDBUF, sndbuf);
  if (rcvbuf) set(r, SO_RCVBUF, rcvbuf);
  long total = 0;
  for (;;) {
    ssize_t n = send(w, buf, (size_t)chunk, MSG_DONTWAIT);
    if (n < 0) break;
    total += n;
  }
  MUST(errno == EAGAIN);
  close(sv[0]);
  close(sv[1]);
  return total;
}

int main(void) {
  static const int chunks[] = { 1, 100, 193, 1000, 3777, 4096, 8000, 36544, 65536, 1 << 20 };
  static const int bufs[] = { 0, 1, 4096, 20000, 100000 };
  for (int pair = 1; pair >= 0; pair--)
    for (unsigned b = 0; b < sizeof bufs / sizeof *bufs; b++) {
      printf("%s sndbuf=%d:", pair ? "socketpair" : "accepted_writes", bufs[b]);
      for (unsigned i = 0; i < sizeof chunks / sizeof *chunks; i++)
        printf(" %d:%ld", chunks[i], fill(pair, !pair, chunks[i], bufs[b], 0));
      printf("\n");
    }
  printf("connector_writes 1000:%ld 65536:%ld\n", fill(false, false, 1000, 0, 0), fill(false, false, 65536, 0, 0));
  printf("reader rcvbuf=1 1000:%ld rcvbuf=100000 1000:%ld\n", fill(true, false, 1000, 0, 1), fill(true, false, 1000, 0, 100000));

  int sv[2];
  make(sv, false);
  printf("accepted sndbuf=%d rcvbuf=%d\n", get(sv[1], SO_SNDBUF), get(sv[1], SO_RCVBUF));
  close(sv[0]);
  close(sv[1]);

  /* The charge, and when a drained writer is writable again. */
  make(sv, true);
  MUST(send(sv[0], buf, 1000, 0) == 1000);
  int q = -1;
  MUST(ioctl(sv[0], SIOCOUTQ, &q) == 0);
  printf("outq_after_one_1000=%d\n", q);
  int n = 1;
  while (send(sv[0], buf, 1000, MSG_DONTWAIT) == 1000) n++;
  struct pollfd p = { .fd = sv[0], .events = POLLOUT };
  SHOW("writable_when_full", poll(&p, 1, 0));
  /* Half a piece read frees nothing: the piece is charged until taken whole. */
  MUST(recv(sv[1], buf, 500, 0) == 500);
  MUST(ioctl(sv[0], SIOCOUTQ, &q) == 0);
  printf("held=%d outq_after_half_read=%d\n", n, q);
  MUST(recv(sv[1], buf, 500, 0) == 500);
  int reads = 1;
  while (poll(&p, 1, 0) == 0) {
    MUST(recv(sv[1], buf, 1000, 0) == 1000);
    reads++;
  }
  MUST(ioctl(sv[0], SIOCOUTQ, &q) == 0);
  printf("writable_after_reads=%d outq_then=%d\n", reads, q);
  /* A reader closing with pieces unread frees them: the charge goes. */
  close(sv[1]);
  MUST(ioctl(sv[0], SIOCOUTQ, &q) == 0);
  printf("outq_reader_closed=%d\n", q);
  close(sv[0]);
  return 0;
}
