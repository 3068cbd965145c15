/* Rule: buffers are bounded: a blocking write larger than the buffers
 * blocks until the reader drains them, then completes whole; the reader
 * receives every byte in order. */
#include "conf.h"

#define TOTAL (4 << 20)

static int reader_fd;
static long received, mismatches;

static void *reader(void *arg) {
  (void)arg;
  settle(); /* let the writer fill the buffers and block */
  static char buf[10000];
  long pos = 0;
  for (;;) {
    ssize_t r = read(reader_fd, buf, sizeof buf);
    if (r <= 0) break;
    for (ssize_t i = 0; i < r; i++, pos++)
      if (buf[i] != (char)(pos * 7 % 251)) mismatches++;
    received += r;
  }
  return NULL;
}

int main(void) {
  int c, s;
  pair4(&c, &s);
  static char data[TOTAL];
  for (long i = 0; i < TOTAL; i++) data[i] = (char)(i * 7 % 251);
  reader_fd = s;
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  SHOW("write_all", write(c, data, TOTAL));
  close(c);
  pthread_join(t, NULL);
  printf("received=%ld mismatches=%ld\n", received, mismatches);
  close(s);
  return 0;
}
