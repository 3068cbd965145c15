/* The run's first process daemonizes (daemon(1, 1)) after forking its
 * client: it goes on as the daemon, so the run is the daemon's and ends
 * when the daemon ends (its result line).  The daemon is a new process of
 * the world: the next pid, a session and group of its own, init its
 * parent; its client, orphaned, sees init as its parent too.  A
 * maintenance thread made after daemon() ticks on a timed condition wait;
 * the client is served over TCP on the loopback. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int stopping, ticks;

static void *maintenance(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!stopping) {
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_sec += 1;
    if (pthread_cond_timedwait(&wake, &lock, &at) == ETIMEDOUT) ticks++;
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int p[2];
  if (pipe(p) != 0) return 1;
  pid_t first = getpid();
  pid_t c = fork();
  if (c == 0) {
    unsigned short port;
    if (read(p[0], &port, sizeof port) != (ssize_t)sizeof port) _exit(2);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) _exit(3);
    char buf[256];
    ssize_t n = read(s, buf, sizeof buf - 1);
    if (n <= 0) _exit(4);
    buf[n] = '\0';
    printf("client pid=%d ppid=%d got: %s", (int)getpid(), (int)getppid(), buf);
    sleep(5); /* the daemon's maintenance ticks meanwhile */
    if (write(s, "stop", 4) != 4) _exit(5);
    n = read(s, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    printf("client got: %s", buf);
    close(s);
    _exit(0);
  }
  if (daemon(1, 1) != 0) return 6;
  printf("daemon pid=%d (was %d) ppid=%d pgrp=%d sid=%d tid=%d\n", (int)getpid(), (int)first, (int)getppid(),
         (int)getpgrp(), (int)getsid(0), (int)gettid());
  pthread_t t;
  pthread_create(&t, NULL, maintenance, NULL);
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 4) != 0) return 7;
  getsockname(l, (struct sockaddr *)&a, &len);
  unsigned short port = ntohs(a.sin_port);
  if (write(p[1], &port, sizeof port) != (ssize_t)sizeof port) return 8;
  int s = accept(l, NULL, NULL);
  char text[128];
  snprintf(text, sizeof text, "hello from %d\n", (int)getpid());
  if (write(s, text, strlen(text)) < 0) return 9;
  char buf[16];
  if (read(s, buf, sizeof buf) <= 0) return 10;
  pthread_mutex_lock(&lock);
  stopping = 1;
  pthread_cond_signal(&wake);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  snprintf(text, sizeof text, "stopped after %d ticks\n", ticks);
  if (write(s, text, strlen(text)) < 0) return 11;
  /* Until its client has gone: the run ends with the daemon. */
  while (read(s, buf, sizeof buf) > 0) {
  }
  printf("daemon done\n");
  return 0;
}
