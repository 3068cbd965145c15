/* A node of a heartbeat cluster (bench/world.sh): every PERIOD_MS it sends
 * a heartbeat line to each peer over TCP, and counts the peers' heartbeats
 * it reads, for DURATION_S seconds; then it prints its counts and exits 0.
 *
 *   heartbeat threads|epoll PERIOD_MS DURATION_S PORT SELF PEER,PEER...
 *
 * `threads`: a thread per accepted connection reads it, and the main thread
 * sends and sleeps.  `epoll`: one thread does all of it in an event loop.
 * Mostly idle, like a cluster between requests: the time compression of a
 * simulated world is measured on it. */
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

#define PEERS_MAX 16

static long received;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static long count_lines(const char *buf, ssize_t n) {
  long lines = 0;
  for (ssize_t i = 0; i < n; i++) lines += buf[i] == '\n';
  return lines;
}

static void *reader(void *arg) {
  int fd = (int)(long)arg;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    long lines = count_lines(buf, n);
    pthread_mutex_lock(&lock);
    received += lines;
    pthread_mutex_unlock(&lock);
  }
  close(fd);
  return NULL;
}

static void *acceptor(void *arg) {
  int l = (int)(long)arg;
  for (;;) {
    int c = accept(l, NULL, NULL);
    if (c < 0) continue;
    pthread_t t;
    pthread_create(&t, NULL, reader, (void *)(long)c);
    pthread_detach(t);
  }
  return NULL;
}

static int dial(const char *host, const char *port) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  if (getaddrinfo(host, port, &hints, &res) != 0) return -1;
  for (;;) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
      freeaddrinfo(res);
      return fd;
    }
    close(fd);
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    nanosleep(&ts, NULL);
  }
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long send_beat(const int *peers, int n, const char *self, long beat) {
  char line[64];
  int k = snprintf(line, sizeof line, "hb %s %ld\n", self, beat);
  long sent = 0;
  for (int i = 0; i < n; i++)
    if (send(peers[i], line, (size_t)k, MSG_NOSIGNAL) == k) sent++;
  return sent;
}

static long run_threads(int l, const int *peers, int n, const char *self, long period_ms, double duration) {
  pthread_t t;
  pthread_create(&t, NULL, acceptor, (void *)(long)l);
  pthread_detach(t);
  double start = now_s();
  long sent = 0;
  for (long beat = 0; now_s() - start < duration; beat++) {
    sent += send_beat(peers, n, self, beat);
    struct timespec ts = { period_ms / 1000, (period_ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
  }
  return sent;
}

/* One thread: the listener and the accepted connections in one epoll set,
 * the beat as its timeout. */
static long run_epoll(int l, const int *peers, int n, const char *self, long period_ms, double duration) {
  int ep = epoll_create1(0);
  struct epoll_event ev = { .events = EPOLLIN, .data.fd = l };
  epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev);
  double start = now_s(), next_beat = start;
  long sent = 0;
  for (long beat = 0; now_s() - start < duration;) {
    double now = now_s();
    if (now >= next_beat) {
      sent += send_beat(peers, n, self, beat++);
      next_beat += (double)period_ms / 1000;
      continue;
    }
    struct epoll_event ready[16];
    int k = epoll_wait(ep, ready, 16, (int)((next_beat - now) * 1000 + 0.999));
    for (int i = 0; i < k; i++) {
      int fd = ready[i].data.fd;
      if (fd == l) {
        int c = accept(l, NULL, NULL);
        if (c < 0) continue;
        struct epoll_event cev = { .events = EPOLLIN, .data.fd = c };
        epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
        continue;
      }
      char buf[4096];
      ssize_t got = read(fd, buf, sizeof buf);
      if (got <= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
        close(fd);
      } else {
        received += count_lines(buf, got);
      }
    }
  }
  close(ep);
  return sent;
}

int main(int argc, char **argv) {
  bool epoll = argc == 7 && strcmp(argv[1], "epoll") == 0;
  if (argc != 7 || (!epoll && strcmp(argv[1], "threads") != 0)) {
    fprintf(stderr, "usage: heartbeat threads|epoll PERIOD_MS DURATION_S PORT SELF PEER,PEER...\n");
    return 2;
  }
  argv++;
  long period_ms = atol(argv[1]);
  double duration = atof(argv[2]);
  const char *port = argv[3], *self = argv[4];
  int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)), .sin_addr.s_addr = htonl(INADDR_ANY) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 16) != 0) {
    perror("heartbeat: bind/listen");
    return 1;
  }
  int peers[PEERS_MAX], n = 0;
  for (char *p = strtok(argv[5], ","); p && n < PEERS_MAX; p = strtok(NULL, ","))
    if (strcmp(p, self) != 0) peers[n++] = dial(p, port);
  long sent = epoll ? run_epoll(l, peers, n, self, period_ms, duration)
                    : run_threads(l, peers, n, self, period_ms, duration);
  pthread_mutex_lock(&lock);
  printf("%s sent=%ld received=%ld\n", self, sent, received);
  pthread_mutex_unlock(&lock);
  return 0;
}
