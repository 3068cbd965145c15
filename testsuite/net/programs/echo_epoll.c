/* An epoll echo server and client threads, for replay and exploration.
 *
 * The server (main thread) accepts on a non-blocking listener and echoes
 * with edge-triggered epoll; CLIENTS threads each connect, send ROUNDS
 * messages, read each echo back whole and check it, then close.  The
 * output is the order in which the server saw connections and messages, so
 * different seeds (schedules, latencies) print different orders, and one
 * seed prints the same order in every process.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define CLIENTS 4
#define ROUNDS 5

static struct sockaddr_in addr;

static void *client(void *arg) {
  int id = (int)(long)arg;
  int c = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(c, (struct sockaddr *)&addr, sizeof addr) != 0) {
    printf("client %d: connect: %s\n", id, strerror(errno));
    exit(1);
  }
  for (int r = 0; r < ROUNDS; r++) {
    char msg[32], back[32];
    int n = snprintf(msg, sizeof msg, "c%d-r%d;", id, r);
    if (write(c, msg, (size_t)n) != n) exit(2);
    int got = 0;
    while (got < n) {
      ssize_t k = read(c, back + got, (size_t)(n - got));
      if (k <= 0) {
        printf("client %d: read %zd\n", id, k);
        exit(3);
      }
      got += (int)k;
    }
    if (memcmp(msg, back, (size_t)n) != 0) {
      printf("client %d: echo mismatch\n", id);
      exit(4);
    }
  }
  close(c);
  return NULL;
}

int main(void) {
  int l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(l, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(l, 16) != 0) return 10;
  socklen_t len = sizeof addr;
  getsockname(l, (struct sockaddr *)&addr, &len);
  int ep = epoll_create1(0);
  struct epoll_event ev = { EPOLLIN, { .fd = l } };
  epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev);
  pthread_t t[CLIENTS];
  for (int i = 0; i < CLIENTS; i++) pthread_create(&t[i], NULL, client, (void *)(long)i);
  int closed = 0, accepted = 0;
  long bytes = 0;
  while (closed < CLIENTS) {
    struct epoll_event out[8];
    int n = epoll_wait(ep, out, 8, 10000);
    if (n <= 0) {
      printf("server: epoll_wait %d\n", n);
      return 11;
    }
    for (int i = 0; i < n; i++) {
      int fd = out[i].data.fd;
      if (fd == l) {
        int s;
        while ((s = accept4(l, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
          struct epoll_event cev = { EPOLLIN | EPOLLET | EPOLLRDHUP, { .fd = s } };
          epoll_ctl(ep, EPOLL_CTL_ADD, s, &cev);
          printf("accept %d\n", accepted++);
        }
        continue;
      }
      for (;;) {
        char buf[64];
        ssize_t k = read(fd, buf, sizeof buf);
        if (k > 0) {
          printf("echo %.*s\n", (int)k, buf);
          bytes += k;
          if (write(fd, buf, (size_t)k) != k) return 12;
          continue;
        }
        if (k == 0) {
          close(fd);
          closed++;
          printf("closed %d\n", closed);
        } else if (errno != EAGAIN) {
          printf("server read: %s\n", strerror(errno));
          return 13;
        }
        break;
      }
    }
  }
  for (int i = 0; i < CLIENTS; i++) pthread_join(t[i], NULL);
  printf("done bytes=%ld\n", bytes);
  close(ep);
  close(l);
  return 0;
}
