/* Rule: connections still in a backlog are reset when the listener closes
 * (the client reads ECONNRESET); shutdown(SHUT_RD) of a listener wakes a
 * blocked accept with EINVAL and resets the backlog too. */
#include "conf.h"

static int lfd, accept_r, accept_errno;
/* Prints nothing itself: its result is printed after the join, so the
 * output's order never depends on which thread runs first. */
static void *acceptor(void *arg) {
  (void)arg;
  accept_r = accept(lfd, NULL, NULL);
  accept_errno = errno;
  return NULL;
}

int main(void) {
  struct sockaddr_in a;
  int l = listener4(&a, 4);
  int c = connect4(&a);
  SHOW("close_listener", close(l));
  settle();
  char b;
  SHOW("read_pending_after_close", read(c, &b, 1));
  close(c);

  lfd = listener4(&a, 4);
  int c2 = connect4(&a);
  settle();
  int s2 = accept(lfd, NULL, NULL); /* drain the backlog */
  printf("accept_ok=%d\n", s2 >= 0);
  close(s2);
  close(c2);
  pthread_t t;
  pthread_create(&t, NULL, acceptor, NULL);
  settle(); /* the acceptor blocks */
  SHOW("shutdown_listener", shutdown(lfd, SHUT_RD));
  pthread_join(t, NULL);
  printf("blocked_accept=%d %s\n", accept_r, accept_r < 0 ? ename(accept_errno) : "");
  SHOW("accept_after", accept(lfd, NULL, NULL));
  close(lfd);
  return 0;
}
