/* kv_net: replica lists, connecting by name, line framing (see kv_net.h). */
#define _GNU_SOURCE
#include "kv_net.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int kv_parse_peers(const char *list, struct kv_peer *out, int max) {
  int n = 0;
  const char *p = list;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *colon = memchr(p, ':', len);
    if (n == max || !colon || colon == p) {
      fprintf(stderr, "kv: bad replica list '%s': want host:port,... (at most %d)\n", list, max);
      return -1;
    }
    size_t hlen = (size_t)(colon - p), plen = len - hlen - 1;
    if (hlen >= sizeof out[n].host || plen == 0 || plen >= sizeof out[n].port) {
      fprintf(stderr, "kv: bad replica '%.*s' in '%s'\n", (int)len, p, list);
      return -1;
    }
    memcpy(out[n].host, p, hlen);
    out[n].host[hlen] = '\0';
    memcpy(out[n].port, colon + 1, plen);
    out[n].port[plen] = '\0';
    n++;
    p = end ? end + 1 : p + len;
  }
  if (n == 0) fprintf(stderr, "kv: empty replica list\n");
  return n ? n : -1;
}

int kv_connect(const struct kv_peer *p) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  int rc = getaddrinfo(p->host, p->port, &hints, &res);
  if (rc != 0) {
    /* A name the resolver does not know yet is as transient as a refused
     * connection: the caller backs off and retries. */
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

int kv_listen(const char *port) {
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

void kv_conn_init(struct kv_conn *c, int fd) {
  c->fd = fd;
  c->len = 0;
}

void kv_conn_close(struct kv_conn *c) {
  if (c->fd >= 0) close(c->fd);
  kv_conn_init(c, -1);
}

int kv_read_line(struct kv_conn *c, char *line, size_t cap, int timeout_ms) {
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
    if (timeout_ms >= 0) {
      struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
      int r = poll(&pfd, 1, timeout_ms);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return -1;
      if (r == 0) return 0;
    }
    ssize_t k = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    c->len += (size_t)k;
  }
}

int kv_send_line(int fd, const char *fmt, ...) {
  char line[KV_LINE_MAX];
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

void kv_sleep_ms(long ms) {
  struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}
