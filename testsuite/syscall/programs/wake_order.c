/* Which waiter a raw FUTEX_WAKE of one wakes is drawn from the seed: three
 * threads wait on one word, three wakes of one each end them one at a time,
 * and the order they end in is printed.  Different seeds give different
 * orders; one seed always the same. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic uint32_t word, arrived, woken_count;
static char order[4];

static void *waiter(void *arg) {
  char id = (char)(long)arg;
  atomic_fetch_add(&arrived, 1);
  syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  order[atomic_fetch_add(&woken_count, 1)] = id;
  return NULL;
}

int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, waiter, (void *)('1' + i));
  while (atomic_load(&arrived) < 3) usleep(1000);
  usleep(1000);
  for (int i = 0; i < 3; i++) {
    long n = syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    while (atomic_load(&woken_count) < (uint32_t)(i + 1)) usleep(100);
    if (n != 1) printf("wake %d woke %ld\n", i, n);
  }
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  printf("order=%s\n", order);
  return 0;
}
