/* Every thread of a stopped process stops: a child whose second thread
 * writes a byte every 10 ms writes none while it is stopped (its parent
 * drains the pipe once the stop is reported, waits, and finds nothing
 * new), and ticks again once continued. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int ticks[2];

static void sleep_ms(long ms) {
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void *ticker(void *arg) {
  (void)arg;
  for (;;) {
    if (write(ticks[1], "t", 1) != 1) _exit(9);
    sleep_ms(10);
  }
  return NULL;
}

/* Bytes waiting in the pipe now (it is non-blocking on this side). */
static int drain(void) {
  char buf[256];
  int n = 0;
  ssize_t r;
  while ((r = read(ticks[0], buf, sizeof buf)) > 0) n += (int)r;
  return n;
}

int main(void) {
  if (pipe(ticks)) return 1;
  fflush(stdout);
  pid_t c = fork();
  if (c == 0) {
    pthread_t t;
    pthread_create(&t, NULL, ticker, NULL);
    for (;;) pause();
  }
  fcntl(ticks[0], F_SETFL, O_NONBLOCK);
  char b;
  while (read(ticks[0], &b, 1) != 1) sleep_ms(1); /* it ticks */
  kill(c, SIGSTOP);
  int st = 0;
  pid_t r = waitpid(c, &st, WUNTRACED);
  printf("stopped: waitpid=%d stopped=%d\n", r == c, WIFSTOPPED(st));
  drain();
  sleep_ms(200);
  printf("ticks while stopped: %d\n", drain());
  kill(c, SIGCONT);
  r = waitpid(c, &st, WCONTINUED);
  printf("continued: waitpid=%d continued=%d\n", r == c, WIFCONTINUED(st));
  /* Its ticker runs again (however long a loaded machine takes). */
  char t;
  while (read(ticks[0], &t, 1) != 1) sleep_ms(1);
  printf("ticks again after SIGCONT: %c\n", t);
  kill(c, SIGKILL);
  r = waitpid(c, &st, 0);
  printf("end: waitpid=%d sigkill=%d\n", r == c, WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  return 0;
}
