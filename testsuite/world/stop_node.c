/* A world test node for stops between nodes (docs/processes.md, "Stops
 * and continues").
 *
 *   stop_node target PORT               tells its connection its pid,
 *                                       then echoes each byte back
 *   stop_node stopper HOST PORT [forever]
 *                                       stops the target (SIGSTOP), sends
 *                                       a byte and finds no echo within a
 *                                       virtual second, continues it
 *                                       (SIGCONT) and gets the echo (its
 *                                       exit status says which failed); with
 *                                       `forever` it waits for the echo
 *                                       without continuing it: the world's
 *                                       deadlock, naming the target
 */
#define _GNU_SOURCE
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "node_dial.h"

static int target(int port) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_ANY) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4)) return 1;
  int c = accept(l, NULL, NULL);
  char line[32];
  int k = snprintf(line, sizeof line, "%d\n", (int)getpid());
  if (write(c, line, (size_t)k) != k) return 1;
  char b;
  while (read(c, &b, 1) == 1)
    if (write(c, &b, 1) != 1) return 1;
  return 0;
}

static int stopper(const char *host, const char *port, int forever) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  if (getaddrinfo(host, port, &hints, &res)) return 2;
  int fd = dial_retry(res, 100, 10);
  if (fd < 0) return 3;
  char buf[32];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  if (n <= 0) return 4;
  buf[n] = '\0';
  pid_t pid = (pid_t)atoi(buf);
  printf("target pid=%d\n", (int)pid);
  if (kill(pid, SIGSTOP) != 0) return 5;
  if (write(fd, "s", 1) != 1) return 6;
  if (forever) {
    (void)!read(fd, buf, 1);
    printf("echo came\n");
    return 0;
  }
  struct pollfd p = { fd, POLLIN, 0 };
  int early = poll(&p, 1, 1000);
  printf("echo while stopped: %d\n", early);
  if (early != 0) return 7;
  if (kill(pid, SIGCONT) != 0) return 8;
  if (read(fd, buf, 1) != 1) return 9;
  printf("echo after SIGCONT: %c\n", buf[0]);
  /* The world passes only when the stop held and the continue let go. */
  return buf[0] == 's' ? 0 : 10;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc == 3 && !strcmp(argv[1], "target")) return target(atoi(argv[2]));
  if ((argc == 4 || argc == 5) && !strcmp(argv[1], "stopper"))
    return stopper(argv[2], argv[3], argc == 5 && !strcmp(argv[4], "forever"));
  fprintf(stderr, "usage: stop_node target PORT | stop_node stopper HOST PORT [forever]\n");
  return 2;
}
