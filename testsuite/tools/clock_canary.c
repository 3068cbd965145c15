/* The determinism canary: a program that is NOT deterministic under
 * detsim, on purpose.  It reads the real clock through a system call
 * instruction in inline asm (which the pass warns about and nothing
 * simulates: a declared blind spot; syscall() itself is simulated by
 * number) and yields a number of times chosen by the
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

static void real_clock(struct timespec *ts) {
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"((long)SYS_clock_gettime), "D"((long)CLOCK_MONOTONIC), "S"(ts)
                   : "rcx", "r11", "memory");
  (void)ret;
}

int main(void) {
  struct timespec ts;
  real_clock(&ts);
  long n = (ts.tv_nsec / 1000) % 1000;
  pthread_t t;
  pthread_create(&t, NULL, other, NULL);
  for (long i = 0; i < n; i++) sched_yield();
  pthread_join(t, NULL);
  printf("yielded %ld times\n", n);
  return 0;
}
