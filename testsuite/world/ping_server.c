/* A world test node: answers each line it reads with "pong <line> from
 * <hostname>", one thread per connection, until killed.  With "mute" as
 * its second argument it reads and never answers (a silent peer); with
 * "once" it serves its first connection only, then accepts no other while
 * its timers keep ticking (a server that never recovers, but is no
 * deadlock).  With "term-graceful" a SIGTERM makes it stop accepting,
 * say so on stdout and exit 0; "term-signalfd" does the same, learning of
 * SIGTERM from a signalfd it polls with its listener; with "term-ignore"
 * it ignores SIGTERM (the world kills it at the end of the grace period).
 * With "daemon" it daemonizes first (daemon(1, 1)) and keeps a maintenance
 * thread ticking on a timed condition wait, as servers do. */
#include <netinet/in.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int mute, once;

static pthread_mutex_t tick_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tick_cond = PTHREAD_COND_INITIALIZER;

static void *maintenance(void *arg) {
  (void)arg;
  pthread_mutex_lock(&tick_lock);
  for (;;) {
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_sec += 1;
    pthread_cond_timedwait(&tick_cond, &tick_lock, &at);
  }
  return NULL;
}
static volatile sig_atomic_t stopping;

static void on_term(int sig) {
  (void)sig;
  stopping = 1;
}

static void *serve(void *arg) {
  int fd = (int)(intptr_t)arg;
  /* SIGTERM is the accepting thread's to take (it must see EINTR): a
   * connection thread that took it would stop only itself. */
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, NULL);
  char host[64], buf[256], out[400];
  gethostname(host, sizeof host);
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf - 1)) > 0) {
    if (mute) continue;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    int k = snprintf(out, sizeof out, "pong %s from %s\n", buf, host);
    if (write(fd, out, (size_t)k) != k) break;
  }
  close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  int port = argc > 1 ? atoi(argv[1]) : 7000;
  mute = argc > 2 && strcmp(argv[2], "mute") == 0;
  once = argc > 2 && strcmp(argv[2], "once") == 0;
  if (argc > 2 && strcmp(argv[2], "term-graceful") == 0) {
    struct sigaction sa = { .sa_handler = on_term }; /* no SA_RESTART: accept gives EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
  }
  if (argc > 2 && strcmp(argv[2], "term-ignore") == 0) signal(SIGTERM, SIG_IGN);
  if (argc > 2 && strcmp(argv[2], "daemon") == 0) {
    pid_t before = getpid();
    if (daemon(1, 1) != 0) {
      perror("ping_server: daemon");
      return 1;
    }
    /* Still the node's process, now a session leader with init as parent. */
    if (getpid() == before || getsid(0) != getpid() || getppid() != 1) {
      fprintf(stderr, "ping_server: daemon() left pid=%d sid=%d ppid=%d\n", (int)getpid(), (int)getsid(0),
              (int)getppid());
      return 1;
    }
    pthread_t t;
    pthread_create(&t, NULL, maintenance, NULL);
    pthread_detach(t);
  }
  int sfd = -1;
  if (argc > 2 && strcmp(argv[2], "term-signalfd") == 0) {
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, NULL);
    sfd = signalfd(-1, &term, SFD_CLOEXEC);
  }
  int l = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_ANY) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 16) != 0) {
    perror("ping_server: bind/listen");
    return 1;
  }
  for (int served = 0;; served++) {
    while (once && served > 0) sleep(1);
    if (sfd >= 0) {
      struct pollfd p[2] = { { l, POLLIN, 0 }, { sfd, POLLIN, 0 } };
      if (poll(p, 2, -1) < 0) continue;
      if (p[1].revents & POLLIN) {
        struct signalfd_siginfo si;
        if (read(sfd, &si, sizeof si) == (ssize_t)sizeof si && si.ssi_signo == SIGTERM) {
          printf("graceful shutdown after %d connections (signalfd)\n", served);
          close(l);
          return 0;
        }
      }
      if (!(p[0].revents & POLLIN)) continue;
    }
    int c = accept(l, NULL, NULL);
    if (c < 0 && errno == EINTR && stopping) {
      printf("graceful shutdown after %d connections\n", served);
      close(l);
      return 0;
    }
    if (c < 0) continue;
    pthread_t t;
    pthread_create(&t, NULL, serve, (void *)(intptr_t)c);
    pthread_detach(t);
  }
}
