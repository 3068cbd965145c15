/* A world test node for signals between nodes.
 *
 *   sig_node target PORT       tells each connection its pid, then says
 *                              "got SIGUSR1 from PID" there once a SIGUSR1
 *                              came (the sender's pid, from si_pid)
 *   sig_node sender HOST PORT  reads the target's pid, kills it with
 *                              SIGUSR1, prints what the target says; also
 *                              kill()s a pid no node has (ESRCH)
 *
 * Both print their own ids.  Pids are sent at their natural width: they
 * are the world's numbers, the same in every run of a seed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "node_dial.h"

static volatile sig_atomic_t got;
static volatile pid_t from;

static void on_usr1(int sig, siginfo_t *si, void *uc) {
  (void)sig;
  (void)uc;
  from = si->si_pid;
  got = 1;
}

static int target(int port) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR1, &sa, NULL);
  printf("target pid=%d ppid=%d tid=%d\n", (int)getpid(), (int)getppid(), (int)gettid());
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_ANY) };
  if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4)) return 1;
  int c = accept(l, NULL, NULL);
  char line[64];
  int k = snprintf(line, sizeof line, "%d\n", (int)getpid());
  if (write(c, line, (size_t)k) != k) return 1;
  while (!got) {
    struct timespec ms = { 0, 1000000 };
    nanosleep(&ms, NULL); /* an EINTR when the signal comes is fine */
  }
  k = snprintf(line, sizeof line, "got SIGUSR1 from %d\n", (int)from);
  if (write(c, line, (size_t)k) != k) return 1;
  for (;;) pause();
}

static int sender(const char *host, const char *port) {
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
  if (getaddrinfo(host, port, &hints, &res)) return 2;
  int fd = dial_retry(res, 100, 10);
  if (fd < 0) return 3;
  char buf[64];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  if (n <= 0) return 4;
  buf[n] = '\0';
  pid_t pid = (pid_t)atoi(buf);
  printf("sender pid=%d ppid=%d; target pid=%d\n", (int)getpid(), (int)getppid(), (int)pid);
  errno = 0;
  int r = kill(999999, SIGUSR1);
  printf("kill(unknown)=%d %s\n", r, errno == ESRCH ? "ESRCH" : "?");
  printf("kill(target, 0)=%d\n", kill(pid, 0));
  if (kill(pid, SIGUSR1) != 0) return 5;
  n = read(fd, buf, sizeof buf - 1);
  if (n <= 0) return 6;
  buf[n] = '\0';
  printf("target says: %s", buf);
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc == 3 && !strcmp(argv[1], "target")) return target(atoi(argv[2]));
  if (argc == 4 && !strcmp(argv[1], "sender")) return sender(argv[2], argv[3]);
  fprintf(stderr, "usage: sig_node target PORT | sig_node sender HOST PORT\n");
  return 2;
}
