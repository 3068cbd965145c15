/* Rule: TCP urgent data (MSG_OOB) as Linux has it: the last byte of an
 * urgent send is the mark; without SO_OOBINLINE recv(MSG_OOB) takes it
 * (once, never blocking: EINVAL when there is none) and normal reads stop
 * before it and step over it; sockatmark/SIOCATMARK; POLLPRI in poll,
 * select's exceptfds and epoll; a later mark replaces an unread one (the
 * old byte becomes normal data, or goes when the reader is at it); with
 * SO_OOBINLINE the byte is read in the stream; SIGURG to the F_SETOWN
 * owner when the mark arrives. */
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>

#include "conf.h"

static volatile sig_atomic_t urg_signals;
static void on_urg(int sig) {
  (void)sig;
  urg_signals++;
}

static void show_poll(const char *label, int fd) {
  struct pollfd p = { fd, POLLIN | POLLPRI | POLLOUT, 0 };
  MUST(poll(&p, 1, 0) >= 0);
  printf("%s=%s%s%s\n", label, (p.revents & POLLPRI) ? "PRI " : "", (p.revents & POLLIN) ? "IN " : "",
         (p.revents & POLLOUT) ? "OUT" : "");
}

static void show_select_epoll(const char *label, int fd) {
  fd_set ex;
  FD_ZERO(&ex);
  FD_SET(fd, &ex);
  struct timeval tv = { 0, 0 };
  int n = select(fd + 1, NULL, NULL, &ex, &tv);
  int ep = epoll_create1(0);
  struct epoll_event ev = { .events = EPOLLPRI };
  MUST(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0);
  struct epoll_event out;
  int m = epoll_wait(ep, &out, 1, 0);
  printf("%s select_ex=%d isset=%d epoll=%d pri=%d\n", label, n, FD_ISSET(fd, &ex) != 0, m,
         m == 1 && (out.events & EPOLLPRI) != 0);
  close(ep);
}

/* recv with flags into a small buffer: the count and what came, or the errno. */
static void show_recv(const char *label, int fd, size_t len, int flags) {
  char buf[64] = { 0 };
  struct iovec iov = { buf, len };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
  errno = 0;
  ssize_t r = recvmsg(fd, &msg, flags);
  if (r < 0) printf("%s=-1 %s\n", label, ename(errno));
  else printf("%s=%zd data=%.*s oob_flag=%d\n", label, r, (int)r, buf, (msg.msg_flags & MSG_OOB) != 0);
}

static void show_mark(const char *label, int fd) {
  int at = -1;
  MUST(ioctl(fd, SIOCATMARK, &at) == 0);
  printf("%s sockatmark=%d siocatmark=%d\n", label, sockatmark(fd), at);
}

static void nodelay(int fd) {
  int one = 1;
  MUST(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0);
}

static void urgent_out_of_band(void) {
  int c, s;
  pair4(&c, &s);
  nodelay(c);
  show_recv("none_yet", s, 8, MSG_OOB | MSG_DONTWAIT);
  show_mark("fresh", s);
  SHOW("send", send(c, "ab", 2, 0));
  SHOW("send_oob", send(c, "cd", 2, MSG_OOB));
  settle();
  show_poll("poll_urgent", s);
  show_select_epoll("urgent", s);
  show_mark("before", s);
  int n = -1;
  MUST(ioctl(s, FIONREAD, &n) == 0);
  printf("fionread=%d\n", n);
  show_recv("read_to_mark", s, 16, 0);
  show_mark("at", s);
  show_recv("oob_peek", s, 8, MSG_OOB | MSG_PEEK);
  show_recv("oob", s, 8, MSG_OOB);
  show_recv("oob_again", s, 8, MSG_OOB);
  show_poll("poll_after_oob", s);
  show_select_epoll("after_oob", s);
  show_mark("still_at", s);
  show_recv("read_only_mark", s, 16, MSG_DONTWAIT);
  SHOW("send_more", send(c, "ef", 2, 0));
  settle();
  show_recv("read_past", s, 16, 0);
  show_mark("past", s);
  show_recv("oob_past", s, 8, MSG_OOB);
  close(c);
  close(s);
}

static void urgent_never_taken(void) {
  int c, s;
  pair4(&c, &s);
  nodelay(c);
  SHOW("send_oob", send(c, "xy", 2, MSG_OOB));
  settle();
  show_recv("peek_to_mark", s, 16, MSG_PEEK);
  show_recv("read_to_mark", s, 16, 0);
  show_poll("poll_mark_only", s);
  show_recv("read_steps_over", s, 16, MSG_DONTWAIT);
  show_recv("oob_gone", s, 8, MSG_OOB);
  SHOW("send_after", send(c, "z", 1, 0));
  settle();
  show_recv("read_after", s, 16, 0);
  close(c);
  close(s);
}

static void later_mark_replaces(void) {
  int c, s;
  pair4(&c, &s);
  nodelay(c);
  SHOW("send_oob1", send(c, "pA", 2, MSG_OOB));
  settle();
  SHOW("send_oob2", send(c, "B", 1, MSG_OOB));
  settle();
  show_recv("oob_latest", s, 8, MSG_OOB);
  show_recv("read_old_is_data", s, 16, 0);
  show_mark("at_new", s);
  /* Reader at a mark when a newer one arrives: the old byte goes. */
  int c2, s2;
  pair4(&c2, &s2);
  nodelay(c2);
  SHOW("send_oob3", send(c2, "C", 1, MSG_OOB));
  settle();
  show_mark("at_old", s2);
  SHOW("send_oob4", send(c2, "D", 1, MSG_OOB));
  settle();
  show_recv("oob_newest", s2, 8, MSG_OOB);
  show_recv("read_none", s2, 16, MSG_DONTWAIT);
  close(c);
  close(s);
  close(c2);
  close(s2);
}

static void oob_inline(void) {
  struct sockaddr_in a;
  int l = listener4(&a, 4);
  int one = 1;
  MUST(setsockopt(l, SOL_SOCKET, SO_OOBINLINE, &one, sizeof one) == 0);
  int c = connect4(&a);
  int s = accept(l, NULL, NULL);
  MUST(s >= 0);
  nodelay(c);
  int v = 0;
  socklen_t vl = sizeof v;
  MUST(getsockopt(s, SOL_SOCKET, SO_OOBINLINE, &v, &vl) == 0);
  printf("inline_inherited=%d\n", v);
  SHOW("send", send(c, "ab", 2, 0));
  SHOW("send_oob", send(c, "c", 1, MSG_OOB));
  settle();
  show_poll("poll_inline", s);
  show_recv("oob_inline", s, 8, MSG_OOB);
  show_recv("read_to_mark", s, 16, 0);
  show_mark("inline_at", s);
  show_recv("read_mark_byte", s, 16, 0);
  show_mark("inline_past", s);
  show_poll("poll_inline_past", s);
  close(c);
  close(s);
  close(l);
}

static void sigurg_owner(void) {
  int c, s;
  pair4(&c, &s);
  nodelay(c);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_urg;
  MUST(sigaction(SIGURG, &sa, NULL) == 0);
  SHOW("send_oob_no_owner", send(c, "a", 1, MSG_OOB));
  settle();
  settle();
  printf("sigurg_without_owner=%d\n", (int)urg_signals);
  show_recv("oob1", s, 8, MSG_OOB);
  printf("getown_default=%d\n", fcntl(s, F_GETOWN));
  MUST(fcntl(s, F_SETOWN, getpid()) == 0);
  printf("getown_is_pid=%d\n", fcntl(s, F_GETOWN) == getpid());
  SHOW("send_oob_owner", send(c, "b", 1, MSG_OOB));
  /* The signal comes when the mark arrives, while this thread sleeps. */
  settle();
  settle();
  printf("sigurg_with_owner=%d\n", (int)urg_signals);
  show_recv("oob2", s, 8, MSG_OOB);
  MUST(fcntl(s, F_SETOWN, -getpgrp()) == 0);
  printf("getown_is_group=%d\n", fcntl(s, F_GETOWN) == -getpgrp());
  SHOW("send_oob_group", send(c, "c", 1, MSG_OOB));
  settle();
  settle();
  printf("sigurg_with_group=%d\n", (int)urg_signals);
  close(c);
  close(s);
}

static void other_sockets(void) {
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  SHOW("udp_send_oob", sendto(u, "x", 1, MSG_OOB, NULL, 0));
  close(u);
  int l4 = socket(AF_INET, SOCK_STREAM, 0);
  char b;
  SHOW("fresh_tcp_recv_oob", recv(l4, &b, 1, MSG_OOB));
  SHOW("listen", listen(l4, 1));
  SHOW("listener_recv_oob", recv(l4, &b, 1, MSG_OOB));
  close(l4);
}

int main(void) {
  urgent_out_of_band();
  urgent_never_taken();
  later_mark_replaces();
  oob_inline();
  sigurg_owner();
  other_sockets();
  return 0;
}
