/* A world test node with one thread: an event loop, as most servers are.
 *
 *   loop_node ROUNDS PERIOD_MS PORT SELF PEER,PEER...
 *
 * It listens on PORT, dials each peer but itself, then for ROUNDS rounds
 * sends a line to every peer and waits in epoll_wait (the round's rest as
 * its timeout) for its connections and their lines.  It prints what it sent
 * and read, and exits 0.  Every wait of the node is this one thread's, so
 * the thread that gave the world away is always the one to run when the
 * world comes back (world-parked-handover counts the context switches). */
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "node_dial.h"

#define PEERS_MAX 8

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int listen_on(const char *port) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)), .sin_addr.s_addr = htonl(INADDR_ANY) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 16) != 0) {
    perror("loop_node: bind/listen");
    exit(1);
  }
  return l;
}

static int dial(const char *host, const char *port) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  if (getaddrinfo(host, port, &hints, &res) != 0) {
    fprintf(stderr, "loop_node: getaddrinfo(%s) failed\n", host);
    exit(1);
  }
  int fd = dial_retry(res, 0, 10);
  freeaddrinfo(res);
  return fd;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: loop_node ROUNDS PERIOD_MS PORT SELF PEER,PEER...\n");
    return 2;
  }
  long rounds = atol(argv[1]), period_ms = atol(argv[2]);
  const char *port = argv[3], *self = argv[4];
  int l = listen_on(port);
  int peers[PEERS_MAX], n = 0;
  for (char *p = strtok(argv[5], ","); p && n < PEERS_MAX; p = strtok(NULL, ","))
    if (strcmp(p, self) != 0) peers[n++] = dial(p, port);
  int ep = epoll_create1(0);
  struct epoll_event ev = { .events = EPOLLIN, .data.fd = l };
  epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev);
  long sent = 0, lines = 0;
  for (long round = 0; round < rounds; round++) {
    char line[64];
    int k = snprintf(line, sizeof line, "%s %ld\n", self, round);
    for (int i = 0; i < n; i++)
      if (send(peers[i], line, (size_t)k, MSG_NOSIGNAL) == k) sent++;
    for (long end = now_ms() + period_ms, left; (left = end - now_ms()) > 0;) {
      struct epoll_event ready[PEERS_MAX + 1];
      int got = epoll_wait(ep, ready, PEERS_MAX + 1, (int)left);
      for (int i = 0; i < got; i++) {
        int fd = ready[i].data.fd;
        if (fd == l) {
          struct epoll_event cev = { .events = EPOLLIN, .data.fd = accept(l, NULL, NULL) };
          if (cev.data.fd >= 0) epoll_ctl(ep, EPOLL_CTL_ADD, cev.data.fd, &cev);
          continue;
        }
        char buf[512];
        ssize_t r = read(fd, buf, sizeof buf);
        if (r <= 0) {
          epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
          close(fd);
        }
        for (ssize_t j = 0; j < r; j++) lines += buf[j] == '\n';
      }
    }
  }
  printf("%s sent=%ld read=%ld\n", self, sent, lines);
  return 0;
}
