/* Rule: a full listen backlog drops the SYN and the client sends it again,
 * as Linux: backlog + 1 connections fit; a connect past them completes
 * about a second later (the first SYN retransmission) once accept has made
 * room; with TCP_SYNCNT 1 and no room it fails with ETIMEDOUT after
 * 1 + 2 s; a listener closed meanwhile refuses the next SYN. */
#include <fcntl.h>
#include <time.h>

#include "conf.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int nb_connect(const struct sockaddr_in *a, const char *label) {
  int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  MUST(c >= 0);
  SHOW(label, connect(c, (const struct sockaddr *)a, sizeof *a));
  return c;
}

static uint16_t local_port(int fd) {
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  MUST(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
  return a.sin_port;
}

static uint16_t peer_port(int fd) {
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  MUST(getpeername(fd, (struct sockaddr *)&a, &len) == 0);
  return a.sin_port;
}

static void completes_after_accept(void) {
  struct sockaddr_in a;
  int l = listener4(&a, 1);
  int c0 = connect4(&a);
  int c1 = connect4(&a);
  printf("two_fit=1\n");
  int c2 = nb_connect(&a, "third_connect");
  settle();
  struct pollfd p = { c2, POLLOUT, 0 };
  SHOW("third_waits", poll(&p, 1, 0));
  double t0 = now_s();
  int s0 = accept(l, NULL, NULL);
  printf("accept_makes_room=%d\n", s0 >= 0);
  SHOW("third_ready", poll(&p, 1, 3000));
  double waited = now_s() - t0;
  printf("third_by_the_retry=%d\n", waited > 0.7 && waited < 2.5);
  int e = -1;
  socklen_t el = sizeof e;
  MUST(getsockopt(c2, SOL_SOCKET, SO_ERROR, &e, &el) == 0);
  printf("third_so_error=%d\n", e);
  SHOW("third_write", write(c2, "hi", 2));
  settle();
  MUST(fcntl(l, F_SETFL, O_NONBLOCK) == 0);
  int s1 = accept(l, NULL, NULL), s2 = accept(l, NULL, NULL);
  printf("two_more_accepted=%d\n", s1 >= 0 && s2 >= 0);
  SHOW("then_empty", accept(l, NULL, NULL));
  int third = peer_port(s1) == local_port(c2) ? s1 : s2;
  char buf[4] = { 0 };
  SHOW("third_data_len", read(third, buf, sizeof buf - 1));
  printf("third_data=%s\n", buf);
  close(c0);
  close(c1);
  close(c2);
  close(s0);
  close(s1);
  close(s2);
  close(l);
}

static void times_out(void) {
  struct sockaddr_in a;
  int l = listener4(&a, 0);
  int c0 = connect4(&a);
  printf("backlog0_one_fits=1\n");
  int c1 = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1, bad = 0, big = 128;
  SHOW("syncnt_0", setsockopt(c1, IPPROTO_TCP, TCP_SYNCNT, &bad, sizeof bad));
  SHOW("syncnt_128", setsockopt(c1, IPPROTO_TCP, TCP_SYNCNT, &big, sizeof big));
  SHOW("syncnt_1", setsockopt(c1, IPPROTO_TCP, TCP_SYNCNT, &one, sizeof one));
  double t0 = now_s();
  SHOW("connect_full", connect(c1, (struct sockaddr *)&a, sizeof a));
  double waited = now_s() - t0;
  printf("gave_up_after_3s=%d\n", waited > 2.5 && waited < 4.5);
  close(c0);
  close(c1);
  close(l);
}

static void listener_closes(void) {
  struct sockaddr_in a;
  int l = listener4(&a, 0);
  int c0 = connect4(&a);
  int c1 = nb_connect(&a, "waiting_connect");
  settle();
  close(l);
  struct pollfd p = { c1, POLLOUT, 0 };
  SHOW("after_close_ready", poll(&p, 1, 3000));
  show_revents("after_close_revents", p.revents);
  int e = -1;
  socklen_t el = sizeof e;
  MUST(getsockopt(c1, SOL_SOCKET, SO_ERROR, &e, &el) == 0);
  printf("after_close_error=%s\n", e ? ename(e) : "0");
  close(c0);
  close(c1);
}

int main(void) {
  completes_after_accept();
  times_out();
  listener_closes();
  return 0;
}
