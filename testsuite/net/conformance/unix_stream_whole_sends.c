/* Conformance: an AF_UNIX stream socket queues each send whole.
 *
 * Linux's unix stream sockets carry a send as one buffer (an skb of up to
 * half the send buffer) and a blocking send waits until the whole of it can
 * be queued, so a writer that sends 1000-byte records faster than the
 * reader drains them never leaves half a record in the socket: a reader
 * reading 1000 bytes at a time gets every record whole, even while the
 * buffer is full.  Records carry their index so order and content are
 * checked too.
 */
#include "conf.h"

#define RECORD 1000
#define RECORDS 2000 /* 2 MB: many times the buffer */

static int sv[2];

static void *writer(void *arg) {
  (void)arg;
  char rec[RECORD];
  for (int i = 0; i < RECORDS; i++) {
    memset(rec, 'a' + i % 26, sizeof rec);
    memcpy(rec, &i, sizeof i);
    MUST(send(sv[0], rec, sizeof rec, 0) == RECORD);
  }
  return NULL;
}

int main(void) {
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  pthread_t t;
  MUST(pthread_create(&t, NULL, writer, NULL) == 0);
  settle(); /* the writer fills the buffer and blocks in the middle of the records */
  int short_reads = 0, bad = 0;
  char rec[RECORD];
  for (int i = 0; i < RECORDS; i++) {
    ssize_t n = read(sv[1], rec, sizeof rec);
    if (n != RECORD) {
      short_reads++;
      MUST(n > 0);
      /* keep the stream aligned so the content check goes on */
      while (n < RECORD) {
        ssize_t m = read(sv[1], rec + n, sizeof rec - (size_t)n);
        MUST(m > 0);
        n += m;
      }
    }
    int idx;
    memcpy(&idx, rec, sizeof idx);
    if (idx != i || rec[RECORD - 1] != 'a' + i % 26) bad++;
  }
  MUST(pthread_join(t, NULL) == 0);
  printf("records=%d short_reads=%d bad=%d\n", RECORDS, short_reads, bad);
  return 0;
}
