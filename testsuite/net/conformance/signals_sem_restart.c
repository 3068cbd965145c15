/* Conformance: a semaphore wait interrupted by a signal's handler.
 *
 * As Linux and glibc do it: sem_wait restarts after a handler installed
 * with SA_RESTART (its futex wait has no timeout) and gives EINTR without
 * it; sem_timedwait and sem_clockwait (an absolute futex timeout) give
 * EINTR whatever SA_RESTART says.  A helper thread signals the waiting main
 * thread, then posts.
 */
#include <semaphore.h>
#include <signal.h>
#include <time.h>

#include "conf.h"

static sem_t sem;
static volatile sig_atomic_t handled;
static pthread_t main_thread;

static void on_usr1(int sig) {
  (void)sig;
  handled++;
}

static void *signal_then_post(void *arg) {
  (void)arg;
  usleep(50000);
  MUST(pthread_kill(main_thread, SIGUSR1) == 0);
  usleep(50000);
  MUST(sem_post(&sem) == 0);
  return NULL;
}

enum how { WAIT, TIMEDWAIT, CLOCKWAIT };
static const char *how_name[] = { "sem_wait", "sem_timedwait", "sem_clockwait" };

static int take(enum how how) {
  struct timespec ts;
  switch (how) {
  case WAIT: return sem_wait(&sem);
  case TIMEDWAIT:
    MUST(clock_gettime(CLOCK_REALTIME, &ts) == 0);
    ts.tv_sec += 10;
    return sem_timedwait(&sem, &ts);
  case CLOCKWAIT:
    MUST(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
    ts.tv_sec += 10;
    return sem_clockwait(&sem, CLOCK_MONOTONIC, &ts);
  }
  return -1;
}

int main(void) {
  main_thread = pthread_self();
  for (int restart = 0; restart < 2; restart++) {
    for (enum how how = WAIT; how <= CLOCKWAIT; how++) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_usr1;
      sa.sa_flags = restart ? SA_RESTART : 0;
      sigemptyset(&sa.sa_mask);
      MUST(sigaction(SIGUSR1, &sa, NULL) == 0);
      MUST(sem_init(&sem, 0, 0) == 0);
      handled = 0;
      pthread_t t;
      MUST(pthread_create(&t, NULL, signal_then_post, NULL) == 0);
      char label[64];
      snprintf(label, sizeof label, "%s%s", how_name[how], restart ? " SA_RESTART" : "");
      int r;
      SHOW(label, r = take(how));
      printf("  handler ran: %d\n", (int)handled);
      if (r != 0) MUST(sem_wait(&sem) == 0); /* the post still comes */
      MUST(pthread_join(t, NULL) == 0);
      MUST(sem_destroy(&sem) == 0);
    }
  }
  return 0;
}
