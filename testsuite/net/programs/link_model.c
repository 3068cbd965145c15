/* What a link's drawn jitter and bandwidth do, seen from the program.
 *
 * Two TCP connections over loopback, each with its own drawn link:
 *  - bulk: 4 MiB in 64 KiB writes; the reader checks every byte and prints
 *    how long the transfer took in (virtual) time: "bulk_ms=T ok";
 *  - stamps: 100 small messages 1 ms apart, each carrying its send time;
 *    the reader prints the spread of their one-way delays:
 *    "stamp_spread_us=S ordered".
 */
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BULK_BYTES (4 << 20)
#define CHUNK (64 << 10)
#define STAMPS 100

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pair(int *w, int *r) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1) || getsockname(l, (struct sockaddr *)&a, &len)) exit(2);
  *w = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(*w, (struct sockaddr *)&a, sizeof a)) exit(2);
  *r = accept(l, NULL, NULL);
  close(l);
}

static int bulk_fd, stamp_fd;

static void *bulk_writer(void *arg) {
  (void)arg;
  static unsigned char buf[CHUNK];
  for (size_t off = 0; off < BULK_BYTES; off += CHUNK) {
    for (size_t i = 0; i < CHUNK; i++) buf[i] = (unsigned char)((off + i) * 131u >> 3);
    for (size_t done = 0; done < CHUNK;) {
      ssize_t n = write(bulk_fd, buf + done, CHUNK - done);
      if (n <= 0) exit(3);
      done += (size_t)n;
    }
  }
  close(bulk_fd);
  return NULL;
}

static void *stamp_writer(void *arg) {
  (void)arg;
  for (int i = 0; i < STAMPS; i++) {
    int64_t t = mono_ns();
    if (write(stamp_fd, &t, sizeof t) != (ssize_t)sizeof t) exit(3);
    struct timespec ms = { 0, 1000000 };
    nanosleep(&ms, NULL);
  }
  close(stamp_fd);
  return NULL;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int r;
  pair(&bulk_fd, &r);
  pthread_t t;
  int64_t t0 = mono_ns();
  pthread_create(&t, NULL, bulk_writer, NULL);
  static unsigned char buf[CHUNK];
  size_t got = 0;
  ssize_t n;
  while ((n = read(r, buf, sizeof buf)) > 0) {
    for (ssize_t i = 0; i < n; i++)
      if (buf[i] != (unsigned char)((got + (size_t)i) * 131u >> 3)) {
        printf("bulk: byte %zu is wrong\n", got + (size_t)i);
        return 4;
      }
    got += (size_t)n;
  }
  pthread_join(t, NULL);
  if (got != BULK_BYTES) return 4;
  printf("bulk_ms=%.3f ok\n", (double)(mono_ns() - t0) / 1e6);
  close(r);

  pair(&stamp_fd, &r);
  pthread_create(&t, NULL, stamp_writer, NULL);
  int64_t lo = INT64_MAX, hi = INT64_MIN, last = INT64_MIN;
  int64_t stamp;
  int seen = 0;
  while (read(r, &stamp, sizeof stamp) == (ssize_t)sizeof stamp) {
    int64_t d = mono_ns() - stamp;
    if (stamp < last) return 5; /* a stream never reorders */
    last = stamp;
    if (d < lo) lo = d;
    if (d > hi) hi = d;
    seen++;
  }
  pthread_join(t, NULL);
  if (seen != STAMPS) return 5;
  printf("stamp_spread_us=%lld ordered\n", (long long)((hi - lo) / 1000));
  return 0;
}
