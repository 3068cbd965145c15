/* A world test node: a server that is slow to listen.  It works for
 * DELAY_MS of virtual time first (its start-up: loading state, say), then
 * listens on PORT and answers each connection with "hello from <host>"
 * until killed.  With "never" as its third argument it does the work and
 * exits 0 without ever listening (a server that fails to come up). */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "node_dial.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: late_server DELAY_MS PORT [never]\n");
    return 2;
  }
  pause_ms(atol(argv[1]));
  if (argc > 3 && !strcmp(argv[3], "never")) {
    fprintf(stderr, "late_server: giving up before listening\n");
    return 0;
  }
  int l = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 16) != 0) {
    perror("late_server: bind/listen");
    return 1;
  }
  char host[64] = "";
  gethostname(host, sizeof host);
  for (;;) {
    int c = accept(l, NULL, NULL);
    if (c < 0) continue;
    dprintf(c, "hello from %s\n", host);
    close(c);
  }
}
