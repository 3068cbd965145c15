/* Rule: after the peer closed, the first write succeeds (the peer's kernel
 * answers with RST), the next fails with EPIPE, and SIGPIPE is raised unless
 * MSG_NOSIGNAL. */
#include <signal.h>

#include "conf.h"

static volatile sig_atomic_t sigpipes;
static void on_sigpipe(int sig) {
  (void)sig;
  sigpipes++;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigpipe;
  sigaction(SIGPIPE, &sa, NULL);
  int c, s;
  pair4(&c, &s);
  close(s);
  settle();
  char b;
  SHOW("read_eof", read(c, &b, 1));
  SHOW("first_write", send(c, "a", 1, MSG_NOSIGNAL));
  settle();
  SHOW("second_write", send(c, "b", 1, MSG_NOSIGNAL));
  printf("sigpipes=%d\n", (int)sigpipes);
  SHOW("third_write", write(c, "c", 1));
  printf("sigpipes=%d\n", (int)sigpipes);
  struct pollfd p = { c, POLLIN | POLLOUT | POLLRDHUP, 0 };
  SHOW("poll", poll(&p, 1, 0));
  show_revents("revents", p.revents);
  close(c);
  return 0;
}
