/* A world test node for TCP urgent data and full backlogs between hosts.
 *
 *   urgent_node server PORT N   listens with backlog 1 and waits 1.5 s
 *                               before accepting N connections, so later
 *                               clients' SYNs are dropped and sent again;
 *                               from each it takes "ab" and the urgent "c"
 *                               (POLLPRI, reads stopping at the mark,
 *                               recv(MSG_OOB)), with SIGURG to itself as
 *                               the socket's owner; answers "ok"; exits 0
 *                               when every connection held, else 1
 *   urgent_node client PORT SERVER  connects (again until the server
 *                               listens), sends "ab" then "c" with MSG_OOB,
 *                               waits for "ok"
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "node_dial.h"

static volatile sig_atomic_t urg_signals;
static void on_urg(int sig) {
  (void)sig;
  urg_signals++;
}

static int fail(const char *what) {
  printf("urgent_node: %s (%s)\n", what, strerror(errno));
  return 1;
}

static int serve_one(int s) {
  if (fcntl(s, F_SETOWN, getpid()) != 0) return fail("F_SETOWN");
  struct pollfd p = { s, POLLPRI, 0 };
  if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLPRI)) return fail("no POLLPRI");
  char buf[8] = { 0 };
  ssize_t n = recv(s, buf, sizeof buf, MSG_WAITALL);
  if (n != 2 || memcmp(buf, "ab", 2) != 0) return fail("the bytes before the mark");
  if (sockatmark(s) != 1) return fail("not at the mark");
  char c = 0;
  if (recv(s, &c, 1, MSG_OOB) != 1 || c != 'c') return fail("the urgent byte");
  if (send(s, "ok", 2, 0) != 2) return fail("the answer");
  return 0;
}

static int server(uint16_t port, int n) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_urg;
  sigaction(SIGURG, &sa, NULL);
  int l = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_ANY) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0) return fail("listen");
  pause_ms(1500);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    int s = accept(l, NULL, NULL);
    if (s < 0) return fail("accept");
    bad |= serve_one(s);
    close(s);
  }
  printf("served=%d sigurg=%d\n", n, (int)urg_signals);
  return bad || urg_signals != n;
}

static int client(uint16_t port, const char *host) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  char p[16];
  snprintf(p, sizeof p, "%u", port);
  if (getaddrinfo(host, p, &hints, &res) != 0) return fail("getaddrinfo");
  int c = dial_retry(res, 0, 50);
  freeaddrinfo(res);
  if (c < 0) return fail("connect");
  if (send(c, "ab", 2, 0) != 2 || send(c, "c", 1, MSG_OOB) != 1) return fail("send");
  char ok[2];
  if (recv(c, ok, 2, MSG_WAITALL) != 2) return fail("no answer");
  close(c);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "server") == 0) return server((uint16_t)atoi(argv[2]), atoi(argv[3]));
  if (argc == 4 && strcmp(argv[1], "client") == 0) return client((uint16_t)atoi(argv[2]), argv[3]);
  fprintf(stderr, "usage: urgent_node server PORT N | client PORT SERVER\n");
  return 2;
}
