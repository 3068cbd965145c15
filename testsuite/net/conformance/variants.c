/* Rule: the variant entry points behave as their plain forms: accept4 with
 * flags, ppoll, pselect, epoll_pwait/pwait2, dup3, fcntl under
 * _FILE_OFFSET_BITS=64 (fcntl64), and the fortified read/recv/poll
 * (__read_chk, __recv_chk, __recvfrom_chk, __poll_chk: what gcc-built
 * code calls under _FORTIFY_SOURCE; clang 19 with this glibc does not emit
 * them, so they are called by name here). */
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "conf.h"

ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags, struct sockaddr *addr,
                       socklen_t *addrlen);
int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen);

int main(void) {
  struct sockaddr_in a;
  int l = listener4(&a, 4);
  int c = connect4(&a);
  int s = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  printf("accept4_nonblock=%d cloexec=%d\n", (fcntl(s, F_GETFL) & O_NONBLOCK) != 0, fcntl(s, F_GETFD));
  char buf[16];
  SHOW("read_nonblock", read(s, buf, sizeof buf));
  struct pollfd p = { s, POLLIN, 0 };
  struct timespec ts = { 0, 100000000 };
  sigset_t none;
  sigemptyset(&none);
  SHOW("ppoll_idle", ppoll(&p, 1, &ts, &none));
  SHOW("write", write(c, "v", 1));
  SHOW("ppoll_ready", ppoll(&p, 1, NULL, NULL));
  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(s, &rd);
  SHOW("pselect", pselect(s + 1, &rd, NULL, NULL, &ts, &none));
  int ep = epoll_create(1);
  struct epoll_event ev = { EPOLLIN, { .u32 = 9 } }, out[2];
  epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
  SHOW("epoll_pwait", epoll_pwait(ep, out, 2, 1000, &none));
  SHOW("epoll_pwait2", epoll_pwait2(ep, out, 2, &ts, NULL));
  memset(buf, 0, sizeof buf);
  /* A length known only at run time makes the fortified forms check it. */
  volatile size_t want = sizeof buf;
  volatile nfds_t nfds = 1;
  SHOW("recv_chk", __recv_chk(s, buf, want, sizeof buf, 0));
  SHOW("poll_chk_empty", __poll_chk(&p, nfds, 0, sizeof p));
  int d = dup3(c, 50, O_CLOEXEC);
  printf("dup3=%d cloexec=%d\n", d, fcntl(d, F_GETFD));
  SHOW("dup3_same", dup3(c, c, 0));
  SHOW("fcntl_setfl", fcntl(d, F_SETFL, O_NONBLOCK));
  printf("shared_nonblock=%d\n", (fcntl(c, F_GETFL) & O_NONBLOCK) != 0);
  close(d);
  SHOW("write", write(c, "w", 1));
  settle();
  memset(buf, 0, sizeof buf);
  ssize_t r = __read_chk(s, buf, want, sizeof buf);
  printf("read_chk=%zd data=%s\n", r, buf);
  SHOW("write", write(c, "xy", 2));
  settle();
  socklen_t flen = 0;
  SHOW("recvfrom_chk", __recvfrom_chk(s, buf, 1, sizeof buf, MSG_PEEK, NULL, &flen));
  SHOW("recv_waitall", recv(s, buf, 2, MSG_WAITALL));
  SHOW("epoll_create_zero", epoll_create(0));
  SHOW("epoll_wait_bad_max", epoll_wait(ep, out, 0, 0));
  close(ep);
  close(s);
  close(c);
  close(l);
  return 0;
}
