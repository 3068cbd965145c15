/* An uninstrumented library (plain clang, no plugin) that talks TCP: its
 * socket, connect, send, recv, poll and close calls bind to the runtime's
 * exported names, so they land in the simulation like the program's own. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Connects to 127.0.0.1:port, sends `msg`, waits (poll, 30 s) for the
 * reply into buf; returns the reply's length or -1. */
int plainlib_request(unsigned short port, const char *msg, char *buf, int cap) {
  int c = socket(AF_INET, SOCK_STREAM, 0);
  if (c < 0) return -1;
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  if (connect(c, (struct sockaddr *)&a, sizeof a) != 0) return -1;
  if (send(c, msg, strlen(msg), MSG_NOSIGNAL) != (ssize_t)strlen(msg)) return -1;
  struct pollfd p = { c, POLLIN, 0 };
  if (poll(&p, 1, 30000) != 1) return -1;
  int n = (int)recv(c, buf, (size_t)cap, 0);
  close(c);
  return n;
}
