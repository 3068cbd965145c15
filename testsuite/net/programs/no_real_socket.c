/* No real socket: with sockets, a pipe, an eventfd and an epoll open, the
 * process's /proc/self/fd holds no socket, pipe or anon inode: every one is
 * simulated.  Natively the same program counts real ones (the check's
 * canary). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Kernel sockets, pipes and anon inodes (eventfd, epoll) open now that
 * were not open when the program started (the harness's pipes on stdout
 * and stderr are inherited, not ours). */
static char inherited[64][256];
static int inherited_n;

static int scan(bool record) {
  DIR *d = opendir("/proc/self/fd");
  if (d == NULL) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[300], target[256], key[256];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t k = readlink(path, target, sizeof target - 1);
    if (k <= 0) continue;
    target[k] = '\0';
    if (strncmp(target, "socket:", 7) && strncmp(target, "pipe:", 5) && strncmp(target, "anon_inode:", 11)) continue;
    snprintf(key, sizeof key, "%.20s %.200s", e->d_name, target);
    if (record) {
      if (inherited_n < 64) strcpy(inherited[inherited_n++], key);
      continue;
    }
    bool old = false;
    for (int i = 0; i < inherited_n; i++) old |= strcmp(inherited[i], key) == 0;
    if (old) continue;
    fprintf(stderr, "kernel object: fd %s -> %s\n", e->d_name, target);
    n++;
  }
  closedir(d);
  return n;
}

int main(void) {
  scan(true);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  int l = socket(AF_INET, SOCK_STREAM, 0);
  bind(l, (struct sockaddr *)&a, sizeof a);
  socklen_t len = sizeof a;
  getsockname(l, (struct sockaddr *)&a, &len);
  listen(l, 4);
  int c = socket(AF_INET, SOCK_STREAM, 0);
  int rc = connect(c, (struct sockaddr *)&a, sizeof a);
  int s = accept(l, NULL, NULL);
  int six = socket(AF_INET6, SOCK_STREAM, 0);
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  int p[2];
  pipe(p);
  int e = eventfd(0, 0);
  int ep = epoll_create1(0);
  printf("opened=%d connected=%d\n", l >= 0 && c >= 0 && s >= 0 && six >= 0 && sv[0] >= 0 && p[0] >= 0 && e >= 0 && ep >= 0, rc == 0);
  printf("kernel_objects=%d\n", scan(false));
  return 0;
}
