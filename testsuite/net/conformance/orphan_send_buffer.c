/* Rule: bytes sent to a peer whose socket is closed are never
 * acknowledged (its kernel answers them with RST), so they hold the
 * sender's buffer: a write takes at most a send buffer's worth, and a
 * writer streaming without waiting is held (EAGAIN, no POLLOUT) until the
 * reset arrives, then fails (EPIPE after the peer's FIN, as libevent's
 * http/non_lingering_close expects of a client posting a body too large to
 * a server that answered and closed).  Nothing here depends on how fast the
 * reset comes back: natively it is there at once, simulated a link's
 * latency later. */
#include "conf.h"

#define BIG (8 << 20)
#define SNDBUF_MAX (4 << 20) /* Linux's tcp_wmem maximum */

static char chunk[BIG];

/* Writes `each` bytes at a time without waiting for the peer, polling for
 * POLLOUT when a write would block, until an error or `total` bytes. */
static void stream(int c, size_t each, size_t total) {
  size_t sent = 0;
  int err = 0;
  while (sent < total) {
    ssize_t n = send(c, chunk, each < total - sent ? each : total - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += (size_t)n;
      continue;
    }
    if (n < 0 && errno != EAGAIN) {
      err = errno;
      break;
    }
    struct pollfd p = { c, POLLOUT, 0 };
    MUST(poll(&p, 1, 5000) == 1);
  }
  printf("stream: all written=%s error=%s\n", sent == total ? "yes" : "no", err ? ename(err) : "none");
}

int main(void) {
  /* The peer closed with nothing unread (FIN): the first write is taken,
   * but no more than a send buffer's worth of it; once the reset is back
   * (poll says so) a write fails with EPIPE. */
  int c, s;
  pair4(&c, &s);
  close(s);
  settle();
  ssize_t n = send(c, chunk, BIG, MSG_NOSIGNAL | MSG_DONTWAIT);
  printf("first write: taken=%s at most a send buffer=%s\n", n > 0 ? "yes" : "no", n > 0 && n <= SNDBUF_MAX ? "yes" : "no");
  struct pollfd p = { c, POLLOUT, 0 };
  MUST(poll(&p, 1, 5000) == 1);
  show_revents("after the reset", p.revents);
  SHOW("write after the reset", send(c, chunk, 1, MSG_NOSIGNAL));
  close(c);

  /* The server answers and closes without reading the body (shutdown,
   * then close with unread data: FIN, then RST), while the client goes on
   * streaming 64 KiB at a time: the client's writes end in EPIPE well
   * before 64 MiB. */
  pair4(&c, &s);
  SHOW("request head", write(c, "POST /", 6));
  settle();
  SHOW("response", write(s, "413", 3));
  MUST(shutdown(s, SHUT_WR) == 0);
  close(s);
  stream(c, 64 << 10, (size_t)64 << 20);
  char buf[8] = {0};
  SHOW("client reads the response", read(c, buf, sizeof buf - 1));
  printf("response=%s\n", buf);
  close(c);
  return 0;
}
