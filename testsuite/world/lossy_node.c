/* A world test node for level 2's per-datagram and per-call faults.
 *
 *   lossy_node sink PORT
 *   lossy_node source PORT SINK COUNT
 *
 * The source sends COUNT numbered datagrams to the sink's UDP port and
 * COUNT 100-byte numbered messages over one TCP connection written with
 * non-blocking writes, 5 ms apart, counting the writes that took less than
 * they were given; then it half-closes and reads the sink's account:
 *
 *   udp got=N distinct=N duplicates=N late=N tcp messages=N reads=N split=N
 *
 * "late": datagrams that came after one with a higher number; "split":
 * reads whose length is not a whole number of messages.  The sink checks
 * the TCP byte stream message by message (a wrong byte ends it with status
 * 3).  The source prints the account and its own "short_writes=N".
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "node_dial.h"

#define MESSAGE_BYTES 100
#define COUNT_MAX 4096
#define DIAL_ATTEMPTS 100

/* ---- sink ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int udp_got, udp_distinct, udp_dups, udp_late, udp_highest = -1;
static unsigned char seen[COUNT_MAX];

static void *udp_loop(void *arg) {
  int fd = (int)(long)arg;
  char buf[64];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) continue;
    buf[n] = '\0';
    int i = atoi(buf);
    if (i < 0 || i >= COUNT_MAX) exit(3);
    pthread_mutex_lock(&lock);
    udp_got++;
    if (seen[i]) udp_dups++;
    else udp_distinct++;
    seen[i] = 1;
    if (i < udp_highest) udp_late++;
    if (i > udp_highest) udp_highest = i;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static int sink(int port) {
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_ANY) };
  int u = socket(AF_INET, SOCK_DGRAM, 0), l = socket(AF_INET, SOCK_STREAM, 0);
  if (bind(u, (struct sockaddr *)&a, sizeof a) != 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 4) != 0) {
    perror("lossy_node: bind");
    return 1;
  }
  pthread_t t;
  pthread_create(&t, NULL, udp_loop, (void *)(long)u);
  int c = accept(l, NULL, NULL);
  char msg[MESSAGE_BYTES * 8];
  size_t have = 0;
  int messages = 0, reads = 0, split = 0;
  for (;;) {
    ssize_t n = read(c, msg + have, sizeof msg - have);
    if (n <= 0) break;
    reads++;
    if (n % MESSAGE_BYTES) split++;
    have += (size_t)n;
    while (have >= MESSAGE_BYTES) {
      char want[MESSAGE_BYTES];
      memset(want, '.', sizeof want);
      int k = snprintf(want, sizeof want, "%d", messages);
      want[k] = '.';
      if (memcmp(msg, want, MESSAGE_BYTES) != 0) {
        fprintf(stderr, "lossy_node: message %d is wrong\n", messages);
        exit(3);
      }
      messages++;
      have -= MESSAGE_BYTES;
      memmove(msg, msg + MESSAGE_BYTES, have);
    }
  }
  pause_ms(200); /* datagrams reordered by up to 50 ms still come in */
  pthread_mutex_lock(&lock);
  char out[200];
  int k = snprintf(out, sizeof out, "udp got=%d distinct=%d duplicates=%d late=%d tcp messages=%d reads=%d split=%d\n",
                   udp_got, udp_distinct, udp_dups, udp_late, messages, reads, split);
  pthread_mutex_unlock(&lock);
  if (write(c, out, (size_t)k) != k) return 1;
  close(c);
  for (;;) pause_ms(1000);
}

/* ---- source ---- */

/* Writes all of buf without blocking in write: counts the short writes. */
static int write_all(int fd, const char *buf, size_t len, int *short_writes) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0 && errno == EAGAIN) {
      struct pollfd p = { fd, POLLOUT, 0 };
      poll(&p, 1, -1);
      continue;
    }
    if (n <= 0) return -1;
    if ((size_t)n < len) (*short_writes)++;
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

static int source(const char *port, const char *host, int count) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  if (getaddrinfo(host, port, &hints, &res) != 0 || count > COUNT_MAX) return 2;
  int t = dial_retry(res, DIAL_ATTEMPTS, 10);
  if (t < 0) return 4;
  fcntl(t, F_SETFL, fcntl(t, F_GETFL) | O_NONBLOCK);
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  int short_writes = 0;
  for (int i = 0; i < count; i++) {
    char d[32];
    int k = snprintf(d, sizeof d, "%d", i);
    sendto(u, d, (size_t)k, 0, res->ai_addr, res->ai_addrlen);
    char m[MESSAGE_BYTES];
    memset(m, '.', sizeof m);
    k = snprintf(m, sizeof m, "%d", i);
    m[k] = '.';
    if (write_all(t, m, sizeof m, &short_writes) != 0) return 5;
    pause_ms(5);
  }
  shutdown(t, SHUT_WR);
  fcntl(t, F_SETFL, fcntl(t, F_GETFL) & ~O_NONBLOCK);
  char account[256];
  size_t have = 0;
  ssize_t n;
  while (have < sizeof account - 1 && (n = read(t, account + have, sizeof account - 1 - have)) > 0) have += (size_t)n;
  account[have] = '\0';
  printf("%s", account);
  printf("short_writes=%d\n", short_writes);
  freeaddrinfo(res);
  return have > 0 ? 0 : 6;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc == 3 && strcmp(argv[1], "sink") == 0) return sink(atoi(argv[2]));
  if (argc == 5 && strcmp(argv[1], "source") == 0) return source(argv[2], argv[3], atoi(argv[4]));
  fprintf(stderr, "usage: lossy_node sink PORT | lossy_node source PORT SINK COUNT\n");
  return 2;
}
