/* Rule: a signal's handler interrupts blocking calls as signal(7) says.
 * Without SA_RESTART a read gives EINTR; with SA_RESTART the read goes on
 * and gets what comes later, but poll and nanosleep still give EINTR (with
 * the time left); a blocked signal waits for sigwait, or for a signalfd
 * read; an interval timer's SIGALRM ends pause() with EINTR. */
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <time.h>

#include "conf.h"

static volatile sig_atomic_t handled;
static void on_usr1(int sig) {
  (void)sig;
  handled++;
}

static void handle_usr1(int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGALRM, &sa, NULL);
}

static int fds[2];

static void *blocked_read(void *arg) {
  char b;
  ssize_t r = read(fds[0], &b, 1);
  printf("%s read=%zd%s%s\n", (const char *)arg, r, r < 0 ? " " : "", r < 0 ? ename(errno) : "");
  return NULL;
}

static void *blocked_poll(void *arg) {
  (void)arg;
  struct pollfd p = { fds[0], POLLIN, 0 };
  int r = poll(&p, 1, -1);
  printf("restart poll=%d%s%s\n", r, r < 0 ? " " : "", r < 0 ? ename(errno) : "");
  return NULL;
}

static void *blocked_sleep(void *arg) {
  (void)arg;
  struct timespec req = { 10, 0 }, rem = { 0, 0 };
  int r = nanosleep(&req, &rem);
  printf("nanosleep=%d %s time_left=%d\n", r, r < 0 ? ename(errno) : "", rem.tv_sec > 5);
  return NULL;
}

/* Starts f, lets it block, signals it, and (for a read) feeds it a byte. */
static void interrupt(void *(*f)(void *), void *arg, bool feed) {
  pthread_t t;
  pthread_create(&t, NULL, f, arg);
  settle();
  pthread_kill(t, SIGUSR1);
  settle();
  if (feed) MUST(write(fds[1], "x", 1) == 1);
  pthread_join(t, NULL);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  MUST(pipe(fds) == 0);
  handle_usr1(0);
  interrupt(blocked_read, "plain", false);
  handle_usr1(SA_RESTART);
  interrupt(blocked_read, "restart", true);
  interrupt(blocked_poll, NULL, false);
  interrupt(blocked_sleep, NULL, false);
  printf("handled=%d\n", (int)handled);

  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &usr2, NULL);
  kill(getpid(), SIGUSR2);
  int sig = 0;
  printf("sigwait=%d sig=%s\n", sigwait(&usr2, &sig), sig == SIGUSR2 ? "SIGUSR2" : "?");
  int sfd = signalfd(-1, &usr2, 0);
  raise(SIGUSR2);
  struct signalfd_siginfo si;
  ssize_t n = read(sfd, &si, sizeof si);
  printf("signalfd read=%zd signo=%s\n", n, si.ssi_signo == SIGUSR2 ? "SIGUSR2" : "?");

  handle_usr1(0);
  struct itimerval it = { { 0, 0 }, { 0, SETTLE_US } };
  setitimer(ITIMER_REAL, &it, NULL);
  int r = pause();
  printf("pause=%d %s handled=%d\n", r, ename(errno), (int)handled);
  return 0;
}
