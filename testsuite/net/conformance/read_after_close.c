/* Rule: after the peer's close a read returns 0 (after any data sent before
 * it), and keeps returning 0. */
#include "conf.h"

static int server_fd;

static void *server(void *arg) {
  (void)arg;
  settle();
  write(server_fd, "bye", 3);
  close(server_fd);
  return NULL;
}

int main(void) {
  int c, s;
  pair4(&c, &s);
  server_fd = s;
  pthread_t t;
  pthread_create(&t, NULL, server, NULL);
  char buf[8] = {0};
  SHOW("read_data", read_n(c, buf, 3)); /* blocks until the data comes */
  printf("data=%s\n", buf);
  SHOW("read_eof", read(c, buf, sizeof buf));
  SHOW("read_eof_again", recv(c, buf, sizeof buf, 0));
  struct pollfd p = { c, POLLIN | POLLRDHUP, 0 };
  SHOW("poll", poll(&p, 1, 0));
  show_revents("revents", p.revents);
  pthread_join(t, NULL);
  close(c);
  return 0;
}
