/* A planted raw-futex bug: the waiter checks a flag, then waits on a
 * different word, so a signal that falls between its check and its wait is
 * lost and the waiter sleeps forever.  It needs a switch in that window:
 * some seeds find it (deadlock) in one of the rounds, others pass. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROUNDS 10

static _Atomic int ready;
static _Atomic uint32_t word;

static void *waiter(void *arg) {
  (void)arg;
  if (!atomic_load(&ready)) /* BUG: the wait compares `word`, which never changes */
    syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  return NULL;
}

int main(void) {
  for (int round = 0; round < ROUNDS; round++) {
    pthread_t t;
    atomic_store(&ready, 0);
    pthread_create(&t, NULL, waiter, NULL);
    atomic_store(&ready, 1);
    syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    pthread_join(t, NULL);
  }
  printf("woken\n");
  return 0;
}
