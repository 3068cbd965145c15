/* A simulation build whose network calls come partly from an uninstrumented
 * library (plainlib.c): they must reach the same simulated sockets (the
 * server here answers the library's client) and no real socket. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int plainlib_request(unsigned short port, const char *msg, char *buf, int cap);

static int listener;

static void *server(void *arg) {
  (void)arg;
  int s = accept(listener, NULL, NULL);
  char buf[32] = {0};
  ssize_t n = read(s, buf, sizeof buf - 1);
  char reply[64];
  int k = snprintf(reply, sizeof reply, "echo:%.*s", (int)n, buf);
  write(s, reply, (size_t)k);
  close(s);
  return NULL;
}

static int real_sockets(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    char path[300], t[256];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t k = readlink(path, t, sizeof t - 1);
    if (k > 0 && (t[k] = '\0', !strncmp(t, "socket:", 7))) n++;
  }
  if (d) closedir(d);
  return n;
}

int main(void) {
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  listener = socket(AF_INET, SOCK_STREAM, 0);
  bind(listener, (struct sockaddr *)&a, sizeof a);
  socklen_t len = sizeof a;
  getsockname(listener, (struct sockaddr *)&a, &len);
  listen(listener, 4);
  pthread_t t;
  pthread_create(&t, NULL, server, NULL);
  char buf[64] = {0};
  int n = plainlib_request(ntohs(a.sin_port), "hi", buf, sizeof buf - 1);
  pthread_join(t, NULL);
  printf("reply=%d %s real_sockets=%d\n", n, buf, real_sockets());
  close(listener);
  return 0;
}
