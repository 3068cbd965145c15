/* A planted ordering bug of depth DEPTH across the nodes of a world
 * (world_ordering.scenario):
 *
 *   world_ordering server PORT CLIENTS DEPTH
 *   world_ordering client ID HOST PORT
 *
 * Once every client has dialed, the server gives them all the same start
 * time; then every client node sends one byte per millisecond tick of the
 * world's clock (the tick's number), all of them waking at the same
 * virtual instant, so which
 * client's byte reaches the server first at a tick is the world's choice:
 * which node runs first, then which server thread (one per connection).
 * The server watches ticks 2, 4, ..., 2 * DEPTH: stage s is passed when the
 * first byte of tick 2 * (s + 1) comes from client s % CLIENTS + 1, and a
 * tick missed is never seen again.  The bug (an abort in the server) needs
 * DEPTH such orderings in a row, 1 in CLIENTS^DEPTH seeds; each stage
 * passed is new coverage, which a coverage-guided search can build on and
 * a random walk cannot. */
#include <netdb.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../world/node_dial.h"

/* The clients start this long after the last one dialed; their last byte. */
#define START_AFTER_NS 10000000ull
#define TICK_NS 1000000ull
#define END_TICK 0xff
#define DEPTH_MAX 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int clients, depth;
static int last_tick = -1; /* the tick whose first byte came */
static int stage;          /* stages passed, in order */
static int dialed[256], n_dialed;

/* One block per stage, so that each stage passed is coverage of its own
 * (one counter for all would count stages 4 to 7 in one of libFuzzer's
 * buckets), as the states of a protocol's state machine are. */
#define STAGE(s)                                                             \
  case s:                                                                    \
    if (tick == 2 * ((s) + 1) && client == (s) % clients + 1) stage = (s) + 1; \
    break;

static void arrived(int client, int tick) {
  pthread_mutex_lock(&lock);
  if (tick != last_tick) {
    last_tick = tick;
    switch (stage) {
      STAGE(0) STAGE(1) STAGE(2) STAGE(3) STAGE(4) STAGE(5) STAGE(6) STAGE(7)
      STAGE(8) STAGE(9) STAGE(10) STAGE(11) STAGE(12) STAGE(13) STAGE(14) STAGE(15)
    }
    if (stage == depth) {
      fprintf(stderr, "world_ordering: %d ticks in a row came first from the client they wanted\n", depth);
      abort();
    }
  }
  pthread_mutex_unlock(&lock);
}

static void *serve(void *arg) {
  int fd = (int)(long)arg;
  unsigned char id, tick;
  if (recv(fd, &id, 1, MSG_WAITALL) == 1)
    while (recv(fd, &tick, 1, 0) == 1 && tick != END_TICK) arrived(id, tick);
  close(fd); /* the client waits for this: everything was handled */
  return NULL;
}

static int server(const char *port) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *a;
  if (getaddrinfo(NULL, port, &hints, &a) != 0) return 2;
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(ls, a->ai_addr, a->ai_addrlen) != 0 || listen(ls, 16) != 0) {
    perror("world_ordering: server");
    return 2;
  }
  freeaddrinfo(a);
  while (n_dialed < clients && n_dialed < 256) {
    int fd = accept(ls, NULL, NULL);
    if (fd >= 0) dialed[n_dialed++] = fd;
  }
  /* One start for all: the world's clock is every node's. */
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  uint64_t start = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec + START_AFTER_NS;
  for (int i = 0; i < n_dialed; i++) {
    if (send(dialed[i], &start, sizeof start, 0) != (ssize_t)sizeof start) return 2;
    pthread_t t;
    pthread_create(&t, NULL, serve, (void *)(long)dialed[i]);
    pthread_detach(t);
  }
  for (;;) pause();
}

static void put(int fd, unsigned char b) {
  if (send(fd, &b, 1, 0) != 1) {
    perror("world_ordering: send");
    exit(2);
  }
}

static int client(int id, const char *host, const char *port, int ticks) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *a;
  if (getaddrinfo(host, port, &hints, &a) != 0) return 2;
  int fd = dial_retry(a, 0, 1);
  freeaddrinfo(a);
  put(fd, (unsigned char)id);
  uint64_t start;
  if (recv(fd, &start, sizeof start, MSG_WAITALL) != (ssize_t)sizeof start) return 2;
  for (int k = 1; k <= ticks; k++) {
    /* An absolute deadline: every client wakes at the same instant. */
    struct timespec at = { 0, 0 };
    uint64_t ns = start + (uint64_t)k * TICK_NS;
    at.tv_sec = (time_t)(ns / 1000000000u);
    at.tv_nsec = (long)(ns % 1000000000u);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
    put(fd, (unsigned char)k);
  }
  put(fd, END_TICK);
  unsigned char b;
  while (recv(fd, &b, 1, 0) > 0) {
  }
  close(fd);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[1], "server")) {
    clients = atoi(argv[3]);
    depth = atoi(argv[4]);
    if (clients < 1 || depth < 1 || depth > DEPTH_MAX) {
      fprintf(stderr, "world_ordering: want 1 or more clients and a depth of 1 to %d\n", DEPTH_MAX);
      return 2;
    }
    return server(argv[2]);
  }
  if (argc == 6 && !strcmp(argv[1], "client")) return client(atoi(argv[2]), argv[3], argv[4], atoi(argv[5]));
  fprintf(stderr, "usage: world_ordering server PORT CLIENTS DEPTH | client ID HOST PORT TICKS\n");
  return 2;
}
