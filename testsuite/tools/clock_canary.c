/* The determinism canary: a program that is NOT deterministic under
 * detsim, on purpose.  It reads the real clock through a raw system call
 * (syscall(SYS_clock_gettime), which the runtime passes through with a
 * warning: a declared blind spot) and yields a number of times chosen by the
 * clock's microseconds, 1000 outcomes.  Every run takes another history, so
 * `simreplay --repeat 5` must report it diverged: the chance that five runs
 * agree is about 1 in 10^12. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *other(void *arg) {
  (void)arg;
  sched_yield();
  return NULL;
}

int main(void) {
  struct timespec ts;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
  long n = (ts.tv_nsec / 1000) % 1000;
  pthread_t t;
  pthread_create(&t, NULL, other, NULL);
  for (long i = 0; i < n; i++) sched_yield();
  pthread_join(t, NULL);
  printf("yielded %ld times\n", n);
  return 0;
}
