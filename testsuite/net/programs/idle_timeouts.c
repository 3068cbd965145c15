/* Virtual time: poll, epoll_wait, select and a SO_RCVTIMEO read on an idle
 * connection, each with a 30 s timeout, time out after 30 virtual seconds
 * and cost (almost) no real time. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void) {
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  int l = socket(AF_INET, SOCK_STREAM, 0);
  bind(l, (struct sockaddr *)&a, sizeof a);
  socklen_t len = sizeof a;
  getsockname(l, (struct sockaddr *)&a, &len);
  listen(l, 4);
  int c = socket(AF_INET, SOCK_STREAM, 0);
  connect(c, (struct sockaddr *)&a, sizeof a);
  int s = accept(l, NULL, NULL);

  double t0 = now_s();
  struct pollfd p = { s, POLLIN, 0 };
  int r = poll(&p, 1, 30000);
  double t1 = now_s();
  printf("poll=%d waited_30s=%d\n", r, t1 - t0 >= 30.0 && t1 - t0 < 31.0);

  int ep = epoll_create1(0);
  struct epoll_event ev = { EPOLLIN, { .fd = s } }, out;
  epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
  t0 = now_s();
  r = epoll_wait(ep, &out, 1, 30000);
  t1 = now_s();
  printf("epoll_wait=%d waited_30s=%d\n", r, t1 - t0 >= 30.0 && t1 - t0 < 31.0);

  fd_set rd;
  FD_ZERO(&rd);
  FD_SET(s, &rd);
  struct timeval tv = { 30, 0 };
  t0 = now_s();
  r = select(s + 1, &rd, NULL, NULL, &tv);
  t1 = now_s();
  printf("select=%d waited_30s=%d left=%ld.%06ld\n", r, t1 - t0 >= 30.0 && t1 - t0 < 31.0, (long)tv.tv_sec,
         (long)tv.tv_usec);

  struct timeval rcv = { 30, 0 };
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &rcv, sizeof rcv);
  char b;
  t0 = now_s();
  ssize_t k = read(s, &b, 1);
  t1 = now_s();
  printf("read=%zd errno=%s waited_30s=%d\n", k, strerrorname_np(errno), t1 - t0 >= 30.0 && t1 - t0 < 31.0);

  t0 = now_s();
  r = poll(NULL, 0, 30000); /* the sleep idiom */
  t1 = now_s();
  printf("poll_sleep=%d waited_30s=%d\n", r, t1 - t0 >= 30.0 && t1 - t0 < 31.0);
  close(ep);
  close(c);
  close(s);
  close(l);
  return 0;
}
