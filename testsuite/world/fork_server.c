/* A world test node that forks its workers, as a pre-fork server does: it
 * listens, forks WORKERS processes that accept on the shared listener and
 * answer each line with "pong <line> from <hostname>" (ping_client's and
 * retry_client's protocol), and waits for them.  A worker ends after CONNS
 * connections (0: never), with its number as its exit status; the parent
 * reports each end it reaps (SIGCHLD wakes its wait) and exits 0 when every
 * worker has ended.  The first worker forks a grandchild that sleeps 1000
 * virtual seconds at a time, for ever (something a crash of the node must
 * take with it).
 * With WORKERS 0 it forks a child per connection instead, CONNS in all,
 * each serving two lines and waited for.  Arguments after CONNS are ignored
 * (a test's marker, found in /proc).
 *
 *   fork_server PORT WORKERS CONNS [MARK...]
 */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t sigchld_seen;

static void on_chld(int sig) {
  (void)sig;
  sigchld_seen++;
}

/* One connection: every line answered (a line may come in pieces), until
 * the peer closes. */
static int serve(int fd, const char *host) {
  char line[256], out[400];
  size_t used = 0;
  int lines = 0;
  for (;;) {
    ssize_t n = read(fd, line + used, sizeof line - 1 - used);
    if (n <= 0) break;
    used += (size_t)n;
    char *nl;
    while ((nl = memchr(line, '\n', used)) != NULL) {
      *nl = '\0';
      int k = snprintf(out, sizeof out, "pong %s from %s\n", line, host);
      if (write(fd, out, (size_t)k) != k) goto done;
      lines++;
      used -= (size_t)(nl + 1 - line);
      memmove(line, nl + 1, used);
    }
    if (used == sizeof line - 1) break; /* no line that long is ever sent */
  }
done:
  close(fd);
  return lines;
}

static _Noreturn void worker(int listener, int index, int conns) {
  char host[64];
  gethostname(host, sizeof host);
  if (index == 1 && fork() == 0) {
    /* The grandchild: it never serves, it sleeps 1000 s at a time, for
     * ever (only a crash of the node, or the world's end, ends it). */
    close(listener);
    for (;;) {
      struct timespec long_sleep = { 1000, 0 };
      nanosleep(&long_sleep, NULL);
    }
  }
  for (int c = 0; conns == 0 || c < conns; c++) {
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) {
      if (errno == EINTR) continue;
      perror("fork_server: accept");
      _exit(100);
    }
    int lines = serve(fd, host);
    printf("worker %d pid %d ppid %d: connection %d, %d lines\n", index, (int)getpid(), (int)getppid(), c + 1, lines);
    fflush(stdout);
  }
  _exit(index);
}

/* WORKERS 0: a child per connection, CONNS of them one after another, each
 * waited for once it ended (as inetd-style servers do): far more children
 * than a world holds processes at once. */
static int per_connection(int listener, int conns) {
  char host[64];
  gethostname(host, sizeof host);
  int reaped = 0, ok = 0;
  pid_t last = 0;
  for (int c = 1; c <= conns; c++) {
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) {
      perror("fork_server: accept");
      return 100;
    }
    pid_t p = fork();
    if (p < 0) {
      printf("fork for connection %d failed: %s\n", c, strerror(errno));
      return 4;
    }
    if (p == 0) _exit(serve(fd, host) == 2 ? 0 : 1);
    close(fd);
    ok += p > last; /* every child a pid of its own, in order */
    last = p;
    int st;
    pid_t q;
    while ((q = waitpid(-1, &st, c == conns ? 0 : WNOHANG)) > 0) {
      reaped++;
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        printf("child %d did not serve its two lines\n", (int)q);
        return 6;
      }
      if (c == conns && reaped == conns) break;
    }
  }
  while (reaped < conns && waitpid(-1, NULL, 0) > 0) reaped++;
  printf("%d connections, a child each (%d with new pids), %d reaped\n", conns, ok, reaped);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: fork_server PORT WORKERS CONNS [MARK...]\n");
    return 2;
  }
  int port = atoi(argv[1]), workers = atoi(argv[2]), conns = atoi(argv[3]);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_chld;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  int l = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 16) != 0) {
    perror("fork_server: bind/listen");
    return 3;
  }
  printf("server pid %d listens on %d with %d workers\n", (int)getpid(), port, workers);
  fflush(stdout);
  if (workers == 0) return per_connection(l, conns);
  for (int w = 1; w <= workers; w++) {
    pid_t p = fork();
    if (p < 0) {
      perror("fork_server: fork");
      return 4;
    }
    if (p == 0) worker(l, w, conns);
    printf("forked worker %d: pid %d\n", w, (int)p);
    fflush(stdout);
  }
  for (int left = workers; left > 0;) {
    int st;
    pid_t p = waitpid(-1, &st, 0);
    if (p < 0) {
      if (errno == EINTR) continue;
      perror("fork_server: waitpid");
      return 5;
    }
    printf("reaped pid %d: %s %d (SIGCHLD seen: %s)\n", (int)p, WIFEXITED(st) ? "exit" : "signal",
           WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), sigchld_seen ? "yes" : "no");
    fflush(stdout);
    left--;
  }
  printf("every worker ended\n");
  return 0;
}
