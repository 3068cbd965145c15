/* Raw futex timeouts run on virtual time: 30 s waits (relative FUTEX_WAIT,
 * absolute WAIT_BITSET on CLOCK_MONOTONIC and CLOCK_REALTIME, LOCK_PI with
 * its CLOCK_REALTIME deadline while another thread holds the lock) each end
 * with ETIMEDOUT exactly when virtual time reaches the deadline, and cost no
 * real time.  The PI holder frees the lock at 60 s: the untimed LOCK_PI then
 * takes it, its tid in the word. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic uint32_t word, pi, holding;

static double now(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct timespec in_30s(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  ts.tv_sec += 30;
  return ts;
}

static void show(const char *label, long r, double waited) {
  printf("%s=%ld %s waited_30s=%d\n", label, r, r < 0 ? strerrorname_np(errno) : "ok",
         waited > 29.99 && waited < 30.01);
}

static void *holder(void *arg) {
  (void)arg;
  uint32_t zero = 0;
  if (!atomic_compare_exchange_strong(&pi, &zero, (uint32_t)syscall(SYS_gettid))) return NULL;
  atomic_store(&holding, 1);
  _Atomic uint32_t never = 0;
  syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, &(struct timespec){60, 0}, NULL, 0);
  syscall(SYS_futex, &pi, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
  return NULL;
}

int main(void) {
  double start = now(CLOCK_MONOTONIC), t = start;
  long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &(struct timespec){30, 0}, NULL, 0);
  show("wait_relative", r, now(CLOCK_MONOTONIC) - t);

  struct timespec d = in_30s(CLOCK_MONOTONIC);
  t = now(CLOCK_MONOTONIC);
  r = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE, 0, &d, NULL, FUTEX_BITSET_MATCH_ANY);
  show("wait_bitset_monotonic", r, now(CLOCK_MONOTONIC) - t);

  d = in_30s(CLOCK_REALTIME);
  t = now(CLOCK_REALTIME);
  r = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &d, NULL,
              FUTEX_BITSET_MATCH_ANY);
  show("wait_bitset_realtime", r, now(CLOCK_REALTIME) - t);

  pthread_t h;
  pthread_create(&h, NULL, holder, NULL);
  while (!atomic_load(&holding)) usleep(1000);
  d = in_30s(CLOCK_REALTIME);
  t = now(CLOCK_REALTIME);
  r = syscall(SYS_futex, &pi, FUTEX_LOCK_PI_PRIVATE, 0, &d, NULL, 0);
  show("lock_pi_timed", r, now(CLOCK_REALTIME) - t);
  r = syscall(SYS_futex, &pi, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
  printf("lock_pi=%ld owner_is_me=%d\n", r, (atomic_load(&pi) & FUTEX_TID_MASK) == (uint32_t)syscall(SYS_gettid));
  syscall(SYS_futex, &pi, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
  pthread_join(h, NULL);
  printf("elapsed_s=%.0f\n", now(CLOCK_MONOTONIC) - start);
  return 0;
}
