/* Rule: epoll level-triggered reports while readable; edge-triggered once
 * per arrival; EPOLLONESHOT once until EPOLL_CTL_MOD; EPOLLRDHUP on the
 * peer's FIN; registrations go away with the file. */
#include <sys/epoll.h>

#include "conf.h"

static void show_ev(const char *label, int n, struct epoll_event *ev) {
  printf("%s=%d", label, n);
  for (int i = 0; i < n; i++) {
    printf(" [data=%d", (int)ev[i].data.u32);
    if (ev[i].events & EPOLLIN) printf(" IN");
    if (ev[i].events & EPOLLOUT) printf(" OUT");
    if (ev[i].events & EPOLLRDHUP) printf(" RDHUP");
    if (ev[i].events & EPOLLHUP) printf(" HUP");
    if (ev[i].events & EPOLLERR) printf(" ERR");
    printf("]");
  }
  printf("\n");
  fflush(stdout);
}

int main(void) {
  int c, s;
  pair4(&c, &s);
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = { EPOLLIN, { .u32 = 1 } }, out[4];
  SHOW("ctl_add", epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev));
  SHOW("ctl_add_again", epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev));
  show_ev("lt_idle", epoll_wait(ep, out, 4, 0), out);
  write(c, "0123456789", 10);
  show_ev("lt_data", epoll_wait(ep, out, 4, 5000), out);
  char buf[16];
  read(s, buf, 5);
  show_ev("lt_partial", epoll_wait(ep, out, 4, 0), out);
  read(s, buf, 5);
  show_ev("lt_drained", epoll_wait(ep, out, 4, 0), out);

  ev.events = EPOLLIN | EPOLLET;
  ev.data.u32 = 2;
  SHOW("ctl_mod_et", epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev));
  write(c, "abcdef", 6);
  show_ev("et_data", epoll_wait(ep, out, 4, 5000), out);
  read(s, buf, 3);
  show_ev("et_partial", epoll_wait(ep, out, 4, 100), out);
  write(c, "gh", 2);
  show_ev("et_more", epoll_wait(ep, out, 4, 5000), out);
  read(s, buf, sizeof buf);

  ev.events = EPOLLIN | EPOLLONESHOT;
  ev.data.u32 = 3;
  SHOW("ctl_mod_oneshot", epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev));
  write(c, "x", 1);
  show_ev("oneshot_first", epoll_wait(ep, out, 4, 5000), out);
  show_ev("oneshot_disabled", epoll_wait(ep, out, 4, 100), out);
  SHOW("ctl_rearm", epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev));
  show_ev("oneshot_rearmed", epoll_wait(ep, out, 4, 5000), out);
  read(s, buf, sizeof buf);

  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.u32 = 4;
  SHOW("ctl_mod_rdhup", epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev));
  struct epoll_event cev = { EPOLLOUT, { .u32 = 5 } };
  SHOW("ctl_add_client", epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev));
  show_ev("client_writable", epoll_wait(ep, out, 1, 5000), out);
  SHOW("ctl_del_client", epoll_ctl(ep, EPOLL_CTL_DEL, c, NULL));
  SHOW("ctl_del_missing", epoll_ctl(ep, EPOLL_CTL_DEL, c, NULL));
  shutdown(c, SHUT_WR);
  show_ev("rdhup", epoll_wait(ep, out, 4, 5000), out);
  close(s);
  show_ev("after_close", epoll_wait(ep, out, 4, 0), out);
  SHOW("ctl_self", epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev));
  close(c);
  close(ep);
  return 0;
}
