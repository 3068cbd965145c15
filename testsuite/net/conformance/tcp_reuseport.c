/* Rule: SO_REUSEPORT on TCP: listeners that all set it share a port and
 * the connections spread over them, each accepted by exactly one; a
 * listener without the option is refused the port (EADDRINUSE). */
#include <fcntl.h>

#include "conf.h"

#define CLIENTS 32

static int listener(uint16_t port, int reuseport) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (reuseport) MUST(setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &reuseport, sizeof reuseport) == 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, CLIENTS) != 0) {
    int e = errno;
    close(s);
    errno = e;
    return -1;
  }
  fcntl(s, F_SETFL, O_NONBLOCK);
  return s;
}

static int drain(int l) {
  int n = 0, c;
  while ((c = accept(l, NULL, NULL)) >= 0) {
    close(c);
    n++;
  }
  return n;
}

int main(void) {
  int a = listener(0, 1);
  struct sockaddr_in to;
  socklen_t len = sizeof to;
  getsockname(a, (struct sockaddr *)&to, &len);
  int b = listener(ntohs(to.sin_port), 1);
  printf("second_listener_ok=%d\n", b >= 0);
  SHOW("third_without_option", listener(ntohs(to.sin_port), 0));
  int clients[CLIENTS];
  for (int i = 0; i < CLIENTS; i++) clients[i] = connect4(&to);
  settle();
  int ga = drain(a), gb = drain(b);
  printf("accepted total=%d both_got_some=%d\n", ga + gb, ga > 0 && gb > 0);
  for (int i = 0; i < CLIENTS; i++) close(clients[i]);
  return 0;
}
