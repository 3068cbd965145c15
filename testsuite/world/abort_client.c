/* A world test node for aborted connections: opens CONNS connections to
 * the sink, then every 5 ms writes 100 bytes on the next one and aborts it
 * at once (SO_LINGER 0: RST).  A partition may hold the bytes back when the
 * abort comes; TCP then drops them with the connection.  It waits for
 * every partition to heal before it exits, so the sink has seen it all.
 *
 *   abort_client HOST PORT
 */
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "node_dial.h"

#define CONNS 40

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: abort_client HOST PORT\n");
    return 2;
  }
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  if (getaddrinfo(argv[1], argv[2], &hints, &res) != 0) return 2;
  int fds[CONNS];
  for (int i = 0; i < CONNS; i++) {
    fds[i] = dial_retry(res, 101, 10);
    if (fds[i] < 0) {
      perror("abort_client: connect");
      return 3;
    }
  }
  char msg[100];
  memset(msg, 'x', sizeof msg);
  for (int i = 0; i < CONNS; i++) {
    pause_ms(5);
    if (write(fds[i], msg, sizeof msg) != (ssize_t)sizeof msg) return 4;
    struct linger lg = { 1, 0 };
    setsockopt(fds[i], SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(fds[i]);
  }
  pause_ms(5000); /* every partition has healed by then */
  freeaddrinfo(res);
  printf("abort_client: %d connections aborted\n", CONNS);
  return 0;
}
