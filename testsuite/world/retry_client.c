/* A world test node for crashes: sends ROUNDS pings to each server in turn
 * and rides out whatever the world does to the connection (a reset, a FIN
 * from a dead process, silence from a dead host, a refused or timed-out
 * dial) by reconnecting and sending the same ping again.  It prints what
 * it met, so a test can check each failure showed itself as Linux shows it.
 * Each answered ping is progress (detsim_progress) for the liveness phase.
 *
 *   retry_client ROUNDS PORT HOST,HOST...
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "node_dial.h"

#ifdef __DETSIM__
#include <detsim.h>
#else
static void detsim_progress(void) {}
#endif

/* Past this many failures in a row, the world is not healing: give up. */
#define ATTEMPTS_MAX 400

enum seen { EOF_SEEN, RESET_SEEN, TIMEOUT_SEEN, REFUSED_SEEN, DIAL_TIMEOUT_SEEN, SEEN_KINDS };
static const char *const seen_names[SEEN_KINDS] = { "eof", "reset", "timeout", "refused", "dial_timeout" };
static unsigned seen[SEEN_KINDS];

static int dial(const struct addrinfo *a) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct timeval tv = { 0, 300 * 1000 };
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) return fd;
  /* SO_SNDTIMEO bounds a dial into a dead host: EINPROGRESS. */
  seen[errno == ECONNREFUSED ? REFUSED_SEEN : DIAL_TIMEOUT_SEEN]++;
  close(fd);
  return -1;
}

/* One ping and its answer: 0, or -1 after noting what went wrong. */
static int ping(int fd, const char *msg, const char *want) {
  size_t k = strlen(msg);
  if (send(fd, msg, k, MSG_NOSIGNAL) != (ssize_t)k) {
    seen[errno == EAGAIN ? TIMEOUT_SEEN : RESET_SEEN]++;
    return -1;
  }
  char got[200];
  size_t used = 0;
  while (used < strlen(want)) {
    ssize_t n = read(fd, got + used, strlen(want) - used);
    if (n == 0) {
      seen[EOF_SEEN]++;
      return -1;
    }
    if (n < 0) {
      seen[errno == EAGAIN || errno == EWOULDBLOCK ? TIMEOUT_SEEN : RESET_SEEN]++;
      return -1;
    }
    used += (size_t)n;
  }
  got[used] = '\0';
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "retry_client: got '%s' want '%s'\n", got, want);
    exit(6);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: retry_client ROUNDS PORT HOST,HOST...\n");
    return 2;
  }
  int rounds = atoi(argv[1]);
  char self[64];
  gethostname(self, sizeof self);
  int servers = 0;
  for (char *host = strtok(argv[3], ","); host; host = strtok(NULL, ","), servers++) {
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
    int e = getaddrinfo(host, argv[2], &hints, &res);
    if (e != 0) {
      fprintf(stderr, "retry_client: getaddrinfo %s: %s\n", host, gai_strerror(e));
      return 2;
    }
    int fd = -1, failures = 0;
    for (int i = 0; i < rounds;) {
      if (fd < 0) fd = dial(res);
      char msg[64], want[200];
      snprintf(msg, sizeof msg, "%s-%d\n", self, i);
      snprintf(want, sizeof want, "pong %s-%d from %s\n", self, i, host);
      if (fd >= 0 && ping(fd, msg, want) == 0) {
        i++;
        detsim_progress(); /* an answered ping: the liveness bound restarts */
        failures = 0;
        pause_ms(20);
        continue;
      }
      if (fd >= 0) close(fd);
      fd = -1;
      if (++failures > ATTEMPTS_MAX) {
        fprintf(stderr, "retry_client: %s: %d failures in a row\n", host, failures);
        return 7;
      }
      pause_ms(50);
    }
    if (fd >= 0) close(fd);
    freeaddrinfo(res);
  }
  printf("%s: %d rounds with %d servers ok; seen", self, rounds, servers);
  for (int k = 0; k < SEEN_KINDS; k++) printf(" %s=%u", seen_names[k], seen[k]);
  printf("\n");
  return 0;
}
