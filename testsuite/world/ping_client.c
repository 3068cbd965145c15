/* A world test node: resolves each server by name, sends it ROUNDS pings
 * (sleeping between them on virtual time) and checks every answer.  A
 * negative ROUNDS aborts (a crashing node). */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "node_dial.h"

static int dial(const char *host, const char *port) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  int e = getaddrinfo(host, port, &hints, &res);
  if (e != 0) {
    fprintf(stderr, "ping_client: getaddrinfo %s: %s\n", host, gai_strerror(e));
    exit(2);
  }
  int fd = dial_retry(res, 50, 20);
  if (fd < 0) {
    fprintf(stderr, "ping_client: cannot connect to %s\n", host);
    exit(3);
  }
  freeaddrinfo(res);
  return fd;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: ping_client ROUNDS PORT HOST,HOST...\n");
    return 2;
  }
  int rounds = atoi(argv[1]);
  if (rounds < 0) abort(); /* a crashing node, for the tests */
  char self[64];
  gethostname(self, sizeof self);
  int servers = 0;
  for (char *host = strtok(argv[3], ","); host; host = strtok(NULL, ","), servers++) {
    int fd = dial(host, argv[2]);
    for (int i = 0; i < rounds; i++) {
      char msg[64], want[200], got[200];
      int k = snprintf(msg, sizeof msg, "%s-%d\n", self, i);
      if (write(fd, msg, (size_t)k) != k) return 4;
      snprintf(want, sizeof want, "pong %s-%d from %s\n", self, i, host);
      size_t used = 0;
      while (used < strlen(want)) {
        ssize_t n = read(fd, got + used, strlen(want) - used);
        if (n <= 0) {
          fprintf(stderr, "ping_client: %s closed\n", host);
          return 5;
        }
        used += (size_t)n;
      }
      got[used] = '\0';
      if (strcmp(got, want) != 0) {
        fprintf(stderr, "ping_client: got '%s' want '%s'\n", got, want);
        return 6;
      }
      struct timespec ts = { 0, 100 * 1000 * 1000 };
      nanosleep(&ts, NULL);
    }
    close(fd);
  }
  printf("%s: %d rounds with %d servers ok\n", self, rounds, servers);
  return 0;
}
