/* A world test node for wake-ups: every wait here has no timeout, so a
 * thread that sleeps through what it waits for leaves the world with no
 * deadline, and the run ends as a deadlock instead of passing.
 *
 *   wake_node serve PORT                 (a server: answers until killed)
 *   wake_node send ROUNDS PORT HOST KINDS  (a client: exits 0 when all is done)
 *
 * The client opens one connection per kind of wait in KINDS and waits for
 * the server's greeting (so the server's accept is woken by the connection
 * alone), then sends a byte naming the kind; the server waits on each
 * connection in its own way:
 *   'r' a blocking read, 'p' poll, 'e' edge-triggered epoll_wait: the
 *       client sends ROUNDS 8-byte messages at seeded intervals, each
 *       answered before the next (the client waits in a blocking read);
 *   'b' a slow reader: the client writes BULK_BYTES, more than the
 *       connection holds, in blocking writes, woken only by the server's
 *       reads freeing space; 'B' the same through a non-blocking socket and
 *       an edge-triggered epoll_wait for EPOLLOUT; each answered with its
 *       byte count once all of it is read.
 * Between messages every node is idle (all its threads blocked, most with no
 * deadline), so each arrival must wake the node it is addressed to; a
 * client of the slow kinds only has no deadline at all while it writes, so
 * only the server's reads can wake it. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "node_dial.h"

#ifdef __DETSIM__
#include <detsim.h>
#else
static uint64_t detsim_random(void) { return (uint64_t)random(); }
static void detsim_progress(void) {}
#endif

#define MSG_BYTES 8
/* More than a connection's buffer (256 KiB by default), so the writer blocks. */
#define BULK_BYTES (1u << 20)
#define CHUNK_BYTES (64u << 10)
/* The slow reader's pause after each read, and the longest pause between a
 * client's messages: both in virtual ms. */
#define SLOW_READ_PAUSE_MS 2
#define SEND_PAUSE_MS_MAX 40
#define KINDS_MAX 5
#define GREETING 'w'

static void die(const char *what) {
  fprintf(stderr, "wake_node: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t k = write(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) die("write");
    c += k;
    n -= (size_t)k;
  }
}

/* Reads exactly n bytes with blocking reads; 0 at EOF before any. */
static int read_all(int fd, void *p, size_t n) {
  char *c = p;
  size_t got = 0;
  while (got < n) {
    ssize_t k = read(fd, c + got, n - got);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) die("read");
    if (k == 0) {
      if (got == 0) return 0;
      errno = EPIPE;
      die("read (EOF inside a message)");
    }
    got += (size_t)k;
  }
  return 1;
}

static void set_nonblock(int fd) {
  if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) die("fcntl");
}

/* ---- the server ---- */

static void serve_read(int fd) {
  char m[MSG_BYTES];
  while (read_all(fd, m, sizeof m)) write_all(fd, m, sizeof m);
}

static void serve_poll(int fd) {
  char m[MSG_BYTES];
  for (;;) {
    struct pollfd p = { fd, POLLIN, 0 };
    if (poll(&p, 1, -1) != 1) die("poll");
    if (!read_all(fd, m, sizeof m)) return;
    write_all(fd, m, sizeof m);
  }
}

/* Edge-triggered: reads until EAGAIN after each edge, answering whole
 * messages (an edge may bring part of one). */
static void serve_epoll(int fd) {
  set_nonblock(fd);
  int ep = epoll_create1(0);
  struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.fd = fd };
  if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) die("epoll");
  char m[MSG_BYTES];
  size_t have = 0;
  for (;;) {
    if (epoll_wait(ep, &ev, 1, -1) != 1) die("epoll_wait");
    for (;;) {
      ssize_t k = read(fd, m + have, sizeof m - have);
      if (k < 0 && errno == EAGAIN) break;
      if (k <= 0) return;
      have += (size_t)k;
      if (have < sizeof m) continue;
      write_all(fd, m, sizeof m); /* 8 bytes always fit an empty buffer */
      have = 0;
    }
  }
}

static void serve_slowly(int fd) {
  char *buf = malloc(CHUNK_BYTES);
  if (buf == NULL) die("malloc");
  uint64_t total = 0;
  while (total < BULK_BYTES) {
    ssize_t k = read(fd, buf, CHUNK_BYTES);
    if (k <= 0) die("slow read");
    total += (uint64_t)k;
    pause_ms(SLOW_READ_PAUSE_MS);
  }
  free(buf);
  write_all(fd, &total, sizeof total);
  char end;
  while (read(fd, &end, 1) > 0) {}
}

static void *serve_one(void *arg) {
  int fd = (int)(intptr_t)arg;
  char kind = GREETING;
  write_all(fd, &kind, 1);
  if (read_all(fd, &kind, 1)) {
    if (kind == 'r') serve_read(fd);
    else if (kind == 'p') serve_poll(fd);
    else if (kind == 'e') serve_epoll(fd);
    else serve_slowly(fd);
  }
  close(fd);
  return NULL;
}

static int serve(int port) {
  int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_ANY) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 16) != 0) die("bind/listen");
  for (;;) {
    int c = accept(l, NULL, NULL);
    if (c < 0) continue;
    pthread_t t;
    pthread_create(&t, NULL, serve_one, (void *)(intptr_t)c);
    pthread_detach(t);
  }
}

/* ---- the client ---- */

struct conn {
  int fd;
  char kind;
  long rounds;
  uint64_t answered;
};

static void *send_messages(void *arg) {
  struct conn *c = arg;
  for (long i = 0; i < c->rounds; i++) {
    pause_ms((long)(detsim_random() % (SEND_PAUSE_MS_MAX + 1)));
    char m[MSG_BYTES], back[MSG_BYTES];
    snprintf(m, sizeof m, "%c%06ld", c->kind, i);
    write_all(c->fd, m, sizeof m);
    if (!read_all(c->fd, back, sizeof back) || memcmp(m, back, sizeof m) != 0) {
      fprintf(stderr, "wake_node: '%c' round %ld: a wrong answer\n", c->kind, i);
      exit(1);
    }
    c->answered++;
    detsim_progress();
  }
  return NULL;
}

/* Waits for the next edge on the one edge-triggered registration of `ep`. */
static void wait_edge(int ep) {
  struct epoll_event ev;
  while (epoll_wait(ep, &ev, 1, -1) != 1)
    if (errno != EINTR) die("epoll_wait");
}

static void *send_bulk(void *arg) {
  struct conn *c = arg;
  char *chunk = malloc(CHUNK_BYTES);
  if (chunk == NULL) die("malloc");
  memset(chunk, c->kind, CHUNK_BYTES);
  int ep = -1;
  if (c->kind == 'B') {
    set_nonblock(c->fd);
    ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLET, .data.fd = c->fd };
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) != 0) die("epoll");
  }
  uint64_t sent = 0;
  while (sent < BULK_BYTES) {
    size_t n = BULK_BYTES - sent < CHUNK_BYTES ? BULK_BYTES - sent : CHUNK_BYTES;
    ssize_t k = write(c->fd, chunk, n);
    if (k < 0 && errno == EAGAIN) {
      wait_edge(ep);
      continue;
    }
    if (k <= 0) die("bulk write");
    sent += (uint64_t)k;
  }
  free(chunk);
  uint64_t total = 0;
  size_t got = 0;
  while (got < sizeof total) {
    ssize_t k = read(c->fd, (char *)&total + got, sizeof total - got);
    if (k < 0 && errno == EAGAIN) {
      wait_edge(ep);
      continue;
    }
    if (k <= 0) die("bulk answer");
    got += (size_t)k;
  }
  c->answered = total;
  detsim_progress();
  return NULL;
}

static int dial(const char *host, int port) {
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  if (getaddrinfo(host, service, &hints, &res) != 0) die("getaddrinfo");
  int fd = dial_retry(res, 0, 10);
  freeaddrinfo(res);
  return fd;
}

static int send_all(long rounds, int port, const char *host, const char *kinds) {
  struct conn conns[KINDS_MAX];
  pthread_t threads[KINDS_MAX];
  int n = (int)strlen(kinds);
  if (n > KINDS_MAX || strspn(kinds, "rpebB") != (size_t)n) {
    fprintf(stderr, "wake_node: KINDS is up to %d of r, p, e, b, B\n", KINDS_MAX);
    return 2;
  }
  for (int i = 0; i < n; i++) {
    conns[i] = (struct conn){ dial(host, port), kinds[i], rounds, 0 };
    char greeting;
    if (!read_all(conns[i].fd, &greeting, 1) || greeting != GREETING) {
      fprintf(stderr, "wake_node: no greeting\n");
      return 1;
    }
    write_all(conns[i].fd, &conns[i].kind, 1);
    bool bulk = conns[i].kind == 'b' || conns[i].kind == 'B';
    pthread_create(&threads[i], NULL, bulk ? send_bulk : send_messages, &conns[i]);
  }
  printf("wake:");
  for (int i = 0; i < n; i++) {
    pthread_join(threads[i], NULL);
    printf(" %c=%llu", conns[i].kind, (unsigned long long)conns[i].answered);
  }
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "serve") == 0) return serve(atoi(argv[2]));
  if (argc == 6 && strcmp(argv[1], "send") == 0) return send_all(atol(argv[2]), atoi(argv[3]), argv[4], argv[5]);
  fprintf(stderr, "usage: wake_node serve PORT | wake_node send ROUNDS PORT HOST KINDS\n");
  return 2;
}
