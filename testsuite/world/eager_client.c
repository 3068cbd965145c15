/* A world test node: a client that dials HOST:PORT once, at once, with no
 * retry (as a benchmark client does), and prints the line it gets.  A
 * refused connection is its failure: "connect: Connection refused", exit 1. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: eager_client HOST PORT\n");
    return 2;
  }
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
  if (getaddrinfo(argv[1], argv[2], &hints, &ai) != 0) {
    fprintf(stderr, "eager_client: getaddrinfo(%s) failed\n", argv[1]);
    return 1;
  }
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
    fprintf(stderr, "eager_client: connect: %s\n", strerror(errno));
    return 1;
  }
  char buf[128];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  if (n <= 0) {
    fprintf(stderr, "eager_client: no greeting\n");
    return 1;
  }
  buf[n] = '\0';
  printf("eager_client: %s", buf);
  close(fd);
  freeaddrinfo(ai);
  return 0;
}
