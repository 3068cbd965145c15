/* A signal handler that siglongjmps out of a cancellation point (a sleep)
 * leaves it: a cancel that later wakes the thread in a read acts there
 * (the read returns no EINTR to the program). */
#include <setjmp.h>
#include <signal.h>

#include "cancel_conf.h"

static sigjmp_buf env;
static int pipefd[2];

static void on_usr1(int sig) {
  (void)sig;
  siglongjmp(env, 1);
}

static int cleaned;

static void cleanup(void *arg) {
  (void)arg;
  cleaned = 1; /* main prints it: no race with main's own lines */
}

static void *worker(void *arg) {
  (void)arg;
  if (sigsetjmp(env, 1) == 0) {
    sleep(100);
    printf("  not reached: the sleep ended\n");
  }
  printf("  jumped out of sleep\n");
  pthread_cleanup_push(cleanup, NULL);
  char b;
  ssize_t r = read(pipefd[0], &b, 1);
  printf("  not reached: read=%zd errno=%s\n", r, ename(errno));
  pthread_cleanup_pop(0);
  return NULL;
}

int main(void) {
  if (pipe(pipefd) != 0) return 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  settle();
  pthread_kill(t, SIGUSR1);
  settle();
  printf("cancel=%d\n", pthread_cancel(t));
  join_report("worker", t);
  printf("cleanup ran=%d\n", cleaned);
  return 0;
}
