/* A world test node in the two shapes servers have: one thread in an
 * event loop, or a thread per connection.
 *
 *   loop_node epoll|threads ROUNDS PERIOD_MS PORT SELF PEER,PEER...
 *
 * It listens on PORT, dials each peer but itself, then for ROUNDS rounds
 * sends a line to every peer and waits for the round's rest.  `epoll`: the
 * one thread waits in epoll_wait (the round's rest as its timeout) for its
 * connections and their lines.  `threads`: an acceptor thread starts a
 * reader thread per connection, and the main thread sleeps.  It prints
 * what it sent and exits 0.  When the world comes back to the node, the
 * thread to run first is the one that handed it away (epoll), or a reader
 * or the sleeper (threads): world-handover counts the context switches. */
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
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

static long send_round(const int *peers, int n, const char *self, long round) {
  char line[64];
  int k = snprintf(line, sizeof line, "%s %ld\n", self, round);
  long sent = 0;
  for (int i = 0; i < n; i++)
    if (send(peers[i], line, (size_t)k, MSG_NOSIGNAL) == k) sent++;
  return sent;
}

static void *reader(void *arg) {
  int fd = (int)(long)arg;
  char buf[512];
  while (read(fd, buf, sizeof buf) > 0) {}
  close(fd);
  return NULL;
}

static void *acceptor(void *arg) {
  int l = (int)(long)arg;
  for (;;) {
    int c = accept(l, NULL, NULL);
    pthread_t t;
    if (c >= 0 && pthread_create(&t, NULL, reader, (void *)(long)c) == 0) pthread_detach(t);
  }
  return NULL;
}

static long run_threads(int l, const int *peers, int n, const char *self, long rounds, long period_ms) {
  pthread_t t;
  pthread_create(&t, NULL, acceptor, (void *)(long)l);
  pthread_detach(t);
  long sent = 0;
  for (long round = 0; round < rounds; round++) {
    sent += send_round(peers, n, self, round);
    pause_ms(period_ms);
  }
  return sent;
}

int main(int argc, char **argv) {
  bool threads = argc == 7 && strcmp(argv[1], "threads") == 0;
  if (argc != 7 || (!threads && strcmp(argv[1], "epoll") != 0)) {
    fprintf(stderr, "usage: loop_node epoll|threads ROUNDS PERIOD_MS PORT SELF PEER,PEER...\n");
    return 2;
  }
  argv++;
  long rounds = atol(argv[1]), period_ms = atol(argv[2]);
  const char *port = argv[3], *self = argv[4];
  int l = listen_on(port);
  int peers[PEERS_MAX], n = 0;
  for (char *p = strtok(argv[5], ","); p && n < PEERS_MAX; p = strtok(NULL, ","))
    if (strcmp(p, self) != 0) peers[n++] = dial(p, port);
  if (threads) {
    printf("%s sent=%ld\n", self, run_threads(l, peers, n, self, rounds, period_ms));
    return 0;
  }
  int ep = epoll_create1(0);
  struct epoll_event ev = { .events = EPOLLIN, .data.fd = l };
  epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev);
  long sent = 0;
  for (long round = 0; round < rounds; round++) {
    sent += send_round(peers, n, self, round);
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
      }
    }
  }
  printf("%s sent=%ld\n", self, sent);
  return 0;
}
