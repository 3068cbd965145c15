/* One TCP connection over loopback, one process: a thread writes MIB
 * mebibytes in 64 KiB writes, the main thread reads them all and prints the
 * byte count (bench/world.sh: bytes per wall-second, native against a
 * simulation build). */
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHUNK (64 * 1024)

static long total;
static int out_fd;

static void *writer(void *arg) {
  (void)arg;
  static char buf[CHUNK];
  memset(buf, 'x', sizeof buf);
  for (long left = total; left > 0;) {
    ssize_t n = write(out_fd, buf, left < CHUNK ? (size_t)left : CHUNK);
    if (n <= 0) exit(3);
    left -= n;
  }
  close(out_fd);
  return NULL;
}

int main(int argc, char **argv) {
  total = (argc > 1 ? atol(argv[1]) : 256) * 1024 * 1024;
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0 || getsockname(l, (struct sockaddr *)&a, &len) != 0)
    return 1;
  out_fd = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(out_fd, (struct sockaddr *)&a, sizeof a) != 0) return 1;
  int in = accept(l, NULL, NULL);
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  static char buf[CHUNK];
  long got = 0;
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0) got += n;
  pthread_join(t, NULL);
  printf("bytes=%ld\n", got);
  return got == total ? 0 : 4;
}
