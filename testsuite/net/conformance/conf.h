/* Helpers shared by the conformance programs.
 *
 * Each program checks one rule of TCP (or of a pipe, an eventfd, a unix
 * socket) as Linux shows it on loopback, and prints what it observes: return
 * values, errno names, bytes.  CTest runs it twice, natively over real
 * loopback and as a simulation build, and requires the same stdout.  So a
 * program prints nothing that depends on timing, ports or descriptor
 * numbers, and waits (SETTLE) where the network must settle: natively
 * loopback settles at once; in the simulation links have up to a few ms of
 * latency, and the wait is virtual.
 */
#ifndef CONF_H
#define CONF_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Long enough for anything in flight to arrive, natively and simulated. */
#define SETTLE_US 50000

static inline void settle(void) { usleep(SETTLE_US); }

static inline const char *ename(int e) {
  const char *n = strerrorname_np(e);
  return n ? n : "E?";
}

/* Prints "label=<r>" or "label=-1 <ERRNO>". */
#define SHOW(label, expr) \
  do { \
    errno = 0; \
    long show_r_ = (long)(expr); \
    if (show_r_ < 0) printf("%s=%ld %s\n", (label), show_r_, ename(errno)); \
    else printf("%s=%ld\n", (label), show_r_); \
    fflush(stdout); \
  } while (0)

#define MUST(expr) \
  do { \
    if (!(expr)) { \
      printf("FAILED: %s (%s) at line %d\n", #expr, ename(errno), __LINE__); \
      fflush(stdout); \
      exit(1); \
    } \
  } while (0)

/* A listener on 127.0.0.1, port chosen by the kernel; returns its fd and
 * the address to connect to. */
static inline int listener4(struct sockaddr_in *addr, int backlog) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  MUST(l >= 0);
  memset(addr, 0, sizeof *addr);
  addr->sin_family = AF_INET;
  addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr->sin_port = 0;
  MUST(bind(l, (struct sockaddr *)addr, sizeof *addr) == 0);
  socklen_t len = sizeof *addr;
  MUST(getsockname(l, (struct sockaddr *)addr, &len) == 0);
  MUST(listen(l, backlog) == 0);
  return l;
}

static inline int connect4(const struct sockaddr_in *addr) {
  int c = socket(AF_INET, SOCK_STREAM, 0);
  MUST(c >= 0);
  MUST(connect(c, (const struct sockaddr *)addr, sizeof *addr) == 0);
  return c;
}

/* A connected pair: *cl the client end, *sv the accepted end. */
static inline void pair4(int *cl, int *sv) {
  struct sockaddr_in a;
  int l = listener4(&a, 8);
  *cl = connect4(&a);
  *sv = accept(l, NULL, NULL);
  MUST(*sv >= 0);
  close(l);
}

/* Reads exactly n bytes (blocking), returns the count read before EOF. */
static inline ssize_t read_n(int fd, char *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r <= 0) return r < 0 && got == 0 ? r : (ssize_t)got;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

static inline void show_revents(const char *label, short r) {
  printf("%s=", label);
  if (!r) printf("0");
  if (r & POLLIN) printf("IN ");
  if (r & POLLOUT) printf("OUT ");
  if (r & POLLERR) printf("ERR ");
  if (r & POLLHUP) printf("HUP ");
  if (r & POLLRDHUP) printf("RDHUP ");
  if (r & POLLNVAL) printf("NVAL ");
  printf("\n");
  fflush(stdout);
}

#endif
