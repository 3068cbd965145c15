/* Rule: SO_RCVBUF and SO_SNDBUF as Linux has them: the defaults (TCP's
 * tcp_rmem[1]/tcp_wmem[1], the others' rmem/wmem_default), a set value
 * doubled and floored, an accepted socket inheriting its listener's, and
 * the buffers acting: small ones make a writer block sooner.  (Values stay
 * below the default rmem_max/wmem_max, which hosts often raise.) */
#include <fcntl.h>
#include <sys/un.h>

#include "conf.h"

static int get(int fd, int name) {
  int v = -1;
  socklen_t len = sizeof v;
  MUST(getsockopt(fd, SOL_SOCKET, name, &v, &len) == 0);
  return v;
}

static void set(int fd, int name, int v) { MUST(setsockopt(fd, SOL_SOCKET, name, &v, sizeof v) == 0); }

/* Bytes a non-blocking writer gets in before EAGAIN, the reader idle;
 * 0 for a buffer size means the default. */
static long fill(int rcv, int snd, int *accepted_rcvbuf) {
  struct sockaddr_in a;
  int l = socket(AF_INET, SOCK_STREAM, 0);
  MUST(l >= 0);
  if (rcv) set(l, SO_RCVBUF, rcv);
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  MUST(bind(l, (struct sockaddr *)&a, sizeof a) == 0);
  socklen_t len = sizeof a;
  MUST(getsockname(l, (struct sockaddr *)&a, &len) == 0);
  MUST(listen(l, 4) == 0);
  int c = socket(AF_INET, SOCK_STREAM, 0);
  if (snd) set(c, SO_SNDBUF, snd);
  MUST(connect(c, (struct sockaddr *)&a, sizeof a) == 0);
  int s = accept(l, NULL, NULL);
  MUST(s >= 0);
  if (accepted_rcvbuf) *accepted_rcvbuf = get(s, SO_RCVBUF);
  MUST(fcntl(c, F_SETFL, O_NONBLOCK) == 0);
  static char buf[1 << 16];
  long total = 0;
  for (;;) {
    ssize_t r = write(c, buf, sizeof buf);
    if (r < 0) {
      MUST(errno == EAGAIN);
      settle(); /* what is in flight lands; then once more */
      r = write(c, buf, sizeof buf);
      if (r < 0) break;
    }
    total += r;
  }
  close(c);
  close(s);
  close(l);
  return total;
}

int main(void) {
  int t = socket(AF_INET, SOCK_STREAM, 0);
  printf("tcp_default rcvbuf=%d sndbuf=%d\n", get(t, SO_RCVBUF), get(t, SO_SNDBUF));
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  printf("udp_default rcvbuf=%d sndbuf=%d\n", get(u, SO_RCVBUF), get(u, SO_SNDBUF));
  int sv[2];
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  printf("unix_default rcvbuf=%d sndbuf=%d\n", get(sv[0], SO_RCVBUF), get(sv[0], SO_SNDBUF));
  set(t, SO_RCVBUF, 4096);
  set(t, SO_SNDBUF, 4096);
  printf("set_4096 rcvbuf=%d sndbuf=%d\n", get(t, SO_RCVBUF), get(t, SO_SNDBUF));
  set(t, SO_RCVBUF, 100000);
  set(t, SO_SNDBUF, 100000);
  printf("set_100000 rcvbuf=%d sndbuf=%d\n", get(t, SO_RCVBUF), get(t, SO_SNDBUF));
  set(t, SO_RCVBUF, 1);
  set(t, SO_SNDBUF, 0);
  printf("floors rcvbuf=%d sndbuf=%d\n", get(t, SO_RCVBUF), get(t, SO_SNDBUF));
  set(u, SO_RCVBUF, 3000);
  printf("udp_set rcvbuf=%d\n", get(u, SO_RCVBUF));
  int short_len = 0;
  socklen_t sl = 2;
  SHOW("short_value", setsockopt(t, SOL_SOCKET, SO_RCVBUF, &short_len, sl));
  close(t);
  close(u);
  close(sv[0]);
  close(sv[1]);

  int inherited = 0;
  long tiny = fill(4096, 4096, &inherited);
  printf("accepted_inherits rcvbuf=%d\n", inherited);
  long small_rcv = fill(4096, 65536, NULL);
  long medium = fill(65536, 65536, NULL);
  long large = fill(100000, 100000, NULL);
  printf("tiny_buffers_hold_under_32k=%d\n", tiny > 0 && tiny < 32768);
  printf("small_receive_buffer_blocks_sooner=%d\n", small_rcv < medium);
  printf("larger_buffers_hold_more=%d\n", tiny < medium && medium < large);
  return 0;
}
