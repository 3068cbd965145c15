/* A server that daemonizes, as servers do, twice: with daemon(0, 0), and
 * by hand (fork, setsid, fork: the double fork).  Either daemon has a
 * maintenance thread that ticks on a condition variable's timed wait, and
 * serves one client over TCP on the loopback: the program's first process,
 * which learns the port through a pipe.  The daemon reports what it is (a
 * session leader, no longer the forked child, in "/" with its standard
 * descriptors on /dev/null, or kept by hand) and ends when its client has
 * gone.  Only the client prints. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int stopping, ticks;

/* The daemon's maintenance: a tick every 5 ms until it stops. */
static void *maintenance(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!stopping) {
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_nsec += 5000000;
    if (at.tv_nsec >= 1000000000) {
      at.tv_sec++;
      at.tv_nsec -= 1000000000;
    }
    if (pthread_cond_timedwait(&wake, &lock, &at) == ETIMEDOUT) ticks++;
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

static int is_null(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

static void reply(int c, const char *text) {
  if (write(c, text, strlen(text)) < 0) _exit(20);
}

/* The daemon: listens, tells the port, serves one client line by line. */
static void serve(int port_fd, pid_t forked_pid, const char *how) {
  pthread_t t;
  pthread_create(&t, NULL, maintenance, NULL);
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 4) != 0) _exit(21);
  getsockname(l, (struct sockaddr *)&a, &len);
  unsigned short port = ntohs(a.sin_port);
  if (write(port_fd, &port, sizeof port) != (ssize_t)sizeof port) _exit(22);
  close(port_fd);
  int c = accept(l, NULL, NULL);
  if (c < 0) _exit(23);
  char buf[256];
  size_t have = 0;
  for (;;) {
    ssize_t n = read(c, buf + have, sizeof buf - 1 - have);
    if (n <= 0) break;
    have += (size_t)n;
    buf[have] = '\0';
    char *nl;
    while ((nl = strchr(buf, '\n')) != NULL) {
      *nl = '\0';
      char out[256];
      if (!strncmp(buf, "ping ", 5)) {
        snprintf(out, sizeof out, "pong %s\n", buf + 5);
      } else if (!strcmp(buf, "what")) {
        char cwd[4096];
        int root = getcwd(cwd, sizeof cwd) != NULL && !strcmp(cwd, "/");
        snprintf(out, sizeof out, "%s: session leader=%d group leader=%d not the forked child=%d cwd is /=%d null=%d%d%d\n",
                 how, getsid(0) == getpid(), getpgrp() == getpid(), getpid() != (forked_pid ? forked_pid : getsid(0)), root,
                 /* by hand they stay whatever ran the program */
                 forked_pid ? is_null(0) : 1, forked_pid ? is_null(1) : 1, forked_pid ? is_null(2) : 1);
      } else if (!strcmp(buf, "stop")) {
        pthread_mutex_lock(&lock);
        stopping = 1;
        pthread_cond_signal(&wake);
        pthread_mutex_unlock(&lock);
        pthread_join(t, NULL);
        snprintf(out, sizeof out, "stopped, maintenance ticked=%d\n", ticks > 0);
      } else {
        snprintf(out, sizeof out, "what is '%s'?\n", buf);
      }
      reply(c, out);
      size_t used = (size_t)(nl - buf) + 1;
      memmove(buf, nl + 1, have - used + 1);
      have -= used;
    }
  }
  /* Its client has gone. */
  close(c);
  close(l);
  _exit(0);
}

/* The client: asks, prints the answers. */
static void client(unsigned short port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
    printf("connect: %s\n", strerror(errno));
    exit(1);
  }
  const char *ask[] = { "ping 1\n", "what\n", "ping 2\n", "stop\n" };
  FILE *in = fdopen(dup(s), "r");
  for (unsigned i = 0; i < sizeof ask / sizeof ask[0]; i++) {
    if (i == 3) usleep(20000); /* the maintenance thread ticks meanwhile */
    if (write(s, ask[i], strlen(ask[i])) < 0) exit(2);
    char line[256];
    if (fgets(line, sizeof line, in) == NULL) {
      printf("no answer to %s", ask[i]);
      exit(3);
    }
    printf("%s", line);
  }
  fclose(in);
  close(s);
}

static unsigned short port_from(int fd) {
  unsigned short port = 0;
  if (read(fd, &port, sizeof port) != (ssize_t)sizeof port) {
    printf("no port\n");
    exit(4);
  }
  close(fd);
  return port;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int p[2];
  if (pipe(p) != 0) return 1;
  pid_t c = fork();
  if (c == 0) {
    close(p[0]);
    pid_t me = getpid();
    if (daemon(0, 0) != 0) _exit(10);
    serve(p[1], me, "daemon(0, 0)");
  }
  close(p[1]);
  int st;
  pid_t w = waitpid(c, &st, 0);
  printf("daemon(): the forked child exits=%d status=%d\n", w == c, WEXITSTATUS(st));
  client(port_from(p[0]));

  if (pipe(p) != 0) return 1;
  c = fork();
  if (c == 0) {
    close(p[0]);
    pid_t me = getpid();
    if (setsid() != me) _exit(11);
    pid_t g = fork();
    if (g < 0) _exit(12);
    if (g > 0) _exit(0); /* the session leader goes: its child can never get a terminal */
    (void)me;
    serve(p[1], 0, "by hand");
  }
  close(p[1]);
  w = waitpid(c, &st, 0);
  printf("double fork: the first child exits=%d status=%d\n", w == c, WEXITSTATUS(st));
  client(port_from(p[0]));
  return 0;
}
