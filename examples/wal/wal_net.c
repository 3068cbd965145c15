/* wal_net: connecting, listening, line framing (see wal_net.h). */
#define _GNU_SOURCE
#include "wal_net.h"

#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int wal_split_addr(const char *addr, char *host, size_t host_cap, char *port, size_t port_cap) {
  const char *colon = strrchr(addr, ':');
  size_t hlen = colon ? (size_t)(colon - addr) : 0;
  size_t plen = colon ? strlen(colon + 1) : 0;
  if (!colon || hlen == 0 || hlen >= host_cap || plen == 0 || plen >= port_cap) {
    fprintf(stderr, "wal: bad address '%s': want host:port\n", addr);
    return -1;
  }
  memcpy(host, addr, hlen);
  host[hlen] = '\0';
  memcpy(port, colon + 1, plen + 1);
  return 0;
}

static void set_timeouts(int fd, int timeout_ms) {
  struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000 };
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

int wal_connect(const char *host, const char *port, int timeout_ms) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  if (getaddrinfo(host, port, &hints, &res) != 0) {
    /* A name not resolvable yet is as transient as a refused dial. */
    errno = EHOSTUNREACH;
    return -1;
  }
  int fd = -1, err = ECONNREFUSED;
  for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    if (timeout_ms > 0) set_timeouts(fd, timeout_ms);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0) errno = err;
  return fd;
}

int wal_listen(const char *port) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *res;
  if (getaddrinfo(NULL, port, &hints, &res) != 0) return -1;
  int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
  int one = 1;
  if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
                  bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 64) != 0)) {
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  return fd;
}

void wal_conn_init(struct wal_conn *c, int fd) {
  c->fd = fd;
  c->len = 0;
}

void wal_conn_close(struct wal_conn *c) {
  if (c->fd >= 0) close(c->fd);
  wal_conn_init(c, -1);
}

int wal_read_line(struct wal_conn *c, char *line, size_t cap) {
  for (;;) {
    char *nl = memchr(c->buf, '\n', c->len);
    if (nl) {
      size_t n = (size_t)(nl - c->buf);
      if (n >= cap) return -1;
      memcpy(line, c->buf, n);
      line[n] = '\0';
      if (n && line[n - 1] == '\r') line[n - 1] = '\0';
      c->len -= n + 1;
      memmove(c->buf, nl + 1, c->len);
      return 1;
    }
    if (c->len == sizeof c->buf) return -1;
    ssize_t k = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    c->len += (size_t)k;
  }
}

int wal_send_line(int fd, const char *fmt, ...) {
  char line[WAL_LINE_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof line - 1) return -1;
  line[n++] = '\n';
  for (int off = 0; off < n;) {
    ssize_t k = send(fd, line + off, (size_t)(n - off), MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    off += (int)k;
  }
  return 0;
}

void wal_sleep_ms(long ms) {
  struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}
