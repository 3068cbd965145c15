/* A world test node: accepts connections and, for each, reads until it
 * ends, then prints how many bytes arrived and how it ended (eof or reset).
 *
 *   abort_sink PORT
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static void *drain(void *arg) {
  int fd = (int)(intptr_t)arg;
  char buf[256];
  long total = 0;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) total += n;
  printf("conn bytes=%ld end=%s\n", total, n == 0 ? "eof" : errno == ECONNRESET ? "reset" : "error");
  fflush(stdout);
  close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  int port = argc > 1 ? atoi(argv[1]) : 7100;
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_ANY) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 64) != 0) {
    perror("abort_sink: bind/listen");
    return 1;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (;;) {
    int c = accept(l, NULL, NULL);
    if (c < 0) continue;
    pthread_t t;
    pthread_create(&t, NULL, drain, (void *)(intptr_t)c);
    pthread_detach(t);
  }
}
