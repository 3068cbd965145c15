/* What the world's test nodes share.  A world starts its nodes one after
 * another, so a node that dials another may find it not listening yet: it
 * tries again a little later, on virtual time.  What giving up means (an
 * exit status, a message) each node says for itself. */
#ifndef DETSIM_TEST_NODE_DIAL_H
#define DETSIM_TEST_NODE_DIAL_H

#include <netdb.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static inline void pause_ms(long ms) {
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&ts, NULL);
}

/* A TCP connection to a, tried up to attempts times (0: until one succeeds)
 * retry_ms apart; -1 when the last attempt fails too. */
static inline int dial_retry(const struct addrinfo *a, int attempts, long retry_ms) {
  for (int attempt = 1;; attempt++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) return fd;
    close(fd);
    if (attempt == attempts) return -1;
    pause_ms(retry_ms);
  }
}

#endif
