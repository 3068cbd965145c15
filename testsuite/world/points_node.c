/* A world test node with coverage points (points.scenario): as `server`
 * it accepts connections and records which client's line came first; as
 * `client` it sends its hostname and waits for the answer.  Every node's
 * points count for the world:
 *
 *   server: REACHABLE "server got a line" (every seed), SOMETIMES "cli2
 *           spoke first" (some seeds), REACHABLE "server never" (no seed)
 *   client: REACHABLE "client answered" (each client, every seed),
 *           SOMETIMES "client never" (evaluated, never true)
 */
#include <detsim.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "node_dial.h"

static int server(int port, int clients) {
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 8) != 0) return 2;
  for (int i = 0; i < clients; i++) {
    int fd = accept(ls, NULL, NULL);
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    if (n <= 0) return 3;
    buf[n] = '\0';
    DETSIM_REACHABLE("server got a line");
    if (i == 0) DETSIM_SOMETIMES(!strncmp(buf, "cli2", 4), "cli2 spoke first");
    if (n > 60) DETSIM_REACHABLE("server never");
    if (write(fd, "ok\n", 3) != 3) return 4;
    close(fd);
  }
  return 0;
}

static int client(const char *host, const char *port) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  if (getaddrinfo(host, port, &hints, &res) != 0) return 2;
  int fd = dial_retry(res, 50, 20);
  freeaddrinfo(res);
  if (fd < 0) return 3;
  char self[64], buf[8];
  gethostname(self, sizeof self);
  size_t k = strlen(self);
  self[k++] = '\n';
  if (write(fd, self, k) != (ssize_t)k) return 4;
  ssize_t n = read(fd, buf, sizeof buf);
  DETSIM_REACHABLE("client answered");
  DETSIM_SOMETIMES(n > 7, "client never");
  close(fd);
  return n == 3 ? 0 : 5;
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], "server")) return server(atoi(argv[2]), atoi(argv[3]));
  if (argc == 4 && !strcmp(argv[1], "client")) return client(argv[2], argv[3]);
  fprintf(stderr, "usage: points_node server PORT CLIENTS | client HOST PORT\n");
  return 2;
}
