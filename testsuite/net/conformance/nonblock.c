/* Rule: non-blocking sockets: connect gives EINPROGRESS then writable with
 * SO_ERROR 0; reads of an empty socket and accepts of an empty backlog give
 * EAGAIN; writes give EAGAIN once the buffers are full, and the socket is
 * writable again once the reader drained them. */
#include <fcntl.h>
#include <sys/ioctl.h>

#include "conf.h"

int main(void) {
  struct sockaddr_in a;
  int l = listener4(&a, 4);
  SHOW("set_nonblock_listener", fcntl(l, F_SETFL, fcntl(l, F_GETFL) | O_NONBLOCK));
  SHOW("accept_empty", accept(l, NULL, NULL));
  int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  printf("getfl_nonblock=%d\n", (fcntl(c, F_GETFL) & O_NONBLOCK) != 0);
  SHOW("connect", connect(c, (struct sockaddr *)&a, sizeof a));
  struct pollfd p = { c, POLLOUT, 0 };
  SHOW("poll_out", poll(&p, 1, 5000));
  show_revents("revents", p.revents);
  int err = -1;
  socklen_t len = sizeof err;
  getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len);
  printf("so_error=%d\n", err);
  SHOW("connect_again", connect(c, (struct sockaddr *)&a, sizeof a));
  struct pollfd lp = { l, POLLIN, 0 };
  SHOW("poll_listener", poll(&lp, 1, 5000));
  int s = accept(l, NULL, NULL);
  printf("accept_ok=%d\n", s >= 0);
  char buf[65536];
  SHOW("read_empty", read(c, buf, sizeof buf));
  SHOW("recv_dontwait", recv(s, buf, sizeof buf, MSG_DONTWAIT));
  memset(buf, 'x', sizeof buf);
  long total = 0;
  int eagain = 0;
  for (int i = 0; i < 10000; i++) {
    ssize_t w = write(c, buf, sizeof buf);
    if (w < 0) {
      eagain = errno == EAGAIN;
      break;
    }
    total += w;
  }
  printf("eagain_when_full=%d wrote_something=%d\n", eagain, total > 0);
  p.revents = 0;
  SHOW("poll_out_full", poll(&p, 1, 0));
  long got = 0;
  while (got < total) {
    ssize_t r = read(s, buf, sizeof buf);
    if (r <= 0) break;
    got += r;
  }
  printf("read_all=%d\n", got == total);
  SHOW("poll_out_drained", poll(&p, 1, 5000));
  show_revents("revents", p.revents);
  int on = 1;
  SHOW("fionbio_off", ioctl(s, FIONBIO, &(int){0}));
  (void)on;
  SHOW("write_small", write(c, "12345", 5));
  settle();
  int avail = -1;
  SHOW("fionread", ioctl(s, FIONREAD, &avail));
  printf("avail=%d\n", avail);
  close(s);
  close(c);
  close(l);
  return 0;
}
