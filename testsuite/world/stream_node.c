/* A world test node that streams numbered messages, over TCP and UDP.
 *
 *   stream_node sink PORT
 *   stream_node source PORT SINK COUNT GAP_MS
 *
 * A source sends COUNT messages to the sink, GAP_MS apart: each as a line
 * "m I SENT" on one TCP connection and as a datagram "u I SENT" to the same
 * port, SENT being its CLOCK_MONOTONIC (the nodes' clocks agree when none is
 * askew).  Then it sends "end COUNT" and waits for the sink's account:
 *
 *   ok tcp=N udp=N tcp_delay_max_us=D udp_delay_max_us=D
 *
 * The sink checks the TCP sequence as it reads (a gap or a reordering ends
 * it with status 3) and counts each source's datagrams (a duplicate: status
 * 4).  The source prints the account and fails (status 5) unless both
 * counts are COUNT: a stalled path may delay bytes and datagrams, never
 * lose them.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "node_dial.h"

#define NS_PER_S 1000000000ll
/* Sources one sink tells apart (by address), and messages per source. */
#define SOURCES_MAX 16
#define MESSAGES_MAX 10000
#define LINE_BYTES 128
/* Datagrams sent before "end" may land a link latency after it: the sink
 * waits this long (far above the 2 ms latency bound) before its account. */
#define SETTLE_NS 50000000l
#define DIAL_ATTEMPTS 50
#define DIAL_RETRY_MS 20

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* ---- sink ---- */

struct source {
  uint32_t addr; /* 0: a free slot */
  int udp_count;
  int64_t udp_delay_max;
  unsigned char seen[MESSAGES_MAX];
};

static struct source sources[SOURCES_MAX];
static pthread_mutex_t sources_lock = PTHREAD_MUTEX_INITIALIZER;

/* The slot of the source at `addr` (called with the lock held). */
static struct source *source_of(uint32_t addr) {
  for (int i = 0; i < SOURCES_MAX; i++) {
    if (sources[i].addr == addr) return &sources[i];
    if (sources[i].addr == 0) {
      sources[i].addr = addr;
      return &sources[i];
    }
  }
  fprintf(stderr, "stream_node: more than %d sources\n", SOURCES_MAX);
  exit(2);
}

static void *take_datagrams(void *arg) {
  int u = (int)(intptr_t)arg;
  for (;;) {
    char buf[LINE_BYTES];
    struct sockaddr_in from;
    socklen_t len = sizeof from;
    ssize_t n = recvfrom(u, buf, sizeof buf - 1, 0, (struct sockaddr *)&from, &len);
    if (n <= 0) continue;
    buf[n] = '\0';
    int i;
    long long sent;
    if (sscanf(buf, "u %d %lld", &i, &sent) != 2 || i < 0 || i >= MESSAGES_MAX) exit(2);
    pthread_mutex_lock(&sources_lock);
    struct source *s = source_of(from.sin_addr.s_addr);
    if (s->seen[i]++) {
      fprintf(stderr, "stream_node: datagram %d came twice\n", i);
      exit(4);
    }
    s->udp_count++;
    int64_t delay = mono_ns() - sent;
    if (delay > s->udp_delay_max) s->udp_delay_max = delay;
    pthread_mutex_unlock(&sources_lock);
  }
  return NULL;
}

/* The next line of the connection, without its newline; 0 at its end. */
static int read_line(int fd, char *line) {
  size_t used = 0;
  char c;
  for (;;) {
    ssize_t n = read(fd, &c, 1);
    if (n <= 0) return 0;
    if (c == '\n') break;
    if (used + 1 >= LINE_BYTES) exit(2);
    line[used++] = c;
  }
  line[used] = '\0';
  return 1;
}

static void account(int fd, int tcp, int64_t tcp_delay_max) {
  struct sockaddr_in peer;
  socklen_t len = sizeof peer;
  getpeername(fd, (struct sockaddr *)&peer, &len);
  struct timespec settle = { 0, SETTLE_NS };
  nanosleep(&settle, NULL);
  pthread_mutex_lock(&sources_lock);
  struct source *s = source_of(peer.sin_addr.s_addr);
  char out[LINE_BYTES];
  int k = snprintf(out, sizeof out, "ok tcp=%d udp=%d tcp_delay_max_us=%lld udp_delay_max_us=%lld\n", tcp,
                   s->udp_count, (long long)(tcp_delay_max / 1000), (long long)(s->udp_delay_max / 1000));
  pthread_mutex_unlock(&sources_lock);
  if (write(fd, out, (size_t)k) != k) exit(2);
}

static void *take_stream(void *arg) {
  int fd = (int)(intptr_t)arg;
  char line[LINE_BYTES];
  int next = 0;
  int64_t delay_max = 0;
  while (read_line(fd, line)) {
    int i;
    long long sent;
    if (sscanf(line, "end %d", &i) == 1) {
      account(fd, next, delay_max);
      continue;
    }
    if (sscanf(line, "m %d %lld", &i, &sent) != 2 || i != next) {
      fprintf(stderr, "stream_node: got '%s', want message %d\n", line, next);
      exit(3);
    }
    next++;
    int64_t delay = mono_ns() - sent;
    if (delay > delay_max) delay_max = delay;
  }
  close(fd);
  return NULL;
}

static int sink(int port) {
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_ANY) };
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  int l = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(u, (struct sockaddr *)&a, sizeof a) != 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 16) != 0) {
    perror("stream_node: bind/listen");
    return 1;
  }
  pthread_t t;
  pthread_create(&t, NULL, take_datagrams, (void *)(intptr_t)u);
  pthread_detach(t);
  for (;;) {
    int c = accept(l, NULL, NULL);
    if (c < 0) continue;
    pthread_create(&t, NULL, take_stream, (void *)(intptr_t)c);
    pthread_detach(t);
  }
}

/* ---- source ---- */

static void write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k <= 0) {
      perror("stream_node: write");
      exit(2);
    }
    p += k;
    n -= (size_t)k;
  }
}

static int source(const char *port, const char *host, int count, long gap_ms) {
  if (count < 1 || count > MESSAGES_MAX) return 2;
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  if (getaddrinfo(host, port, &hints, &res) != 0) return 2;
  int fd = dial_retry(res, DIAL_ATTEMPTS, DIAL_RETRY_MS);
  if (fd < 0) {
    fprintf(stderr, "stream_node: cannot connect\n");
    return 3;
  }
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  if (connect(u, res->ai_addr, res->ai_addrlen) != 0) return 2;
  freeaddrinfo(res);
  char msg[LINE_BYTES];
  for (int i = 0; i < count; i++) {
    long long now = (long long)mono_ns();
    int k = snprintf(msg, sizeof msg, "m %d %lld\n", i, now);
    write_all(fd, msg, (size_t)k);
    k = snprintf(msg, sizeof msg, "u %d %lld", i, now);
    if (send(u, msg, (size_t)k, 0) != k) return 2;
    struct timespec gap = { 0, gap_ms * 1000000l };
    nanosleep(&gap, NULL);
  }
  int k = snprintf(msg, sizeof msg, "end %d\n", count);
  write_all(fd, msg, (size_t)k);
  char line[LINE_BYTES];
  if (!read_line(fd, line)) return 2;
  printf("%s\n", line);
  int tcp, udp;
  if (sscanf(line, "ok tcp=%d udp=%d", &tcp, &udp) != 2 || tcp != count || udp != count) {
    fprintf(stderr, "stream_node: sent %d, the sink has '%s'\n", count, line);
    return 5;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "sink") == 0) return sink(atoi(argv[2]));
  if (argc == 6 && strcmp(argv[1], "source") == 0) return source(argv[2], argv[3], atoi(argv[4]), atol(argv[5]));
  fprintf(stderr, "usage: stream_node sink PORT | stream_node source PORT SINK COUNT GAP_MS\n");
  return 2;
}
