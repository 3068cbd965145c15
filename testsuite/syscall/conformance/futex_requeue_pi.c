/* FUTEX_WAIT_REQUEUE_PI and FUTEX_CMP_REQUEUE_PI as Linux gives them,
 * natively and simulated: a condition over a PI lock in the way glibc's PI
 * condvars used them (waiters requeued onto the held lock and handed it one
 * by one; the top waiter given the free lock at once, the others moved
 * behind it), each woken waiter owning the lock (its tid in the word), and
 * the kernel's errors (EINVAL for a plain wake or requeue that meets such a
 * waiter, for a plain waiter, another PI futex, nr_wake != 1 or the same
 * futex; EAGAIN for a changed word; ETIMEDOUT). */
#include "../../net/conformance/conf.h"

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts, _Atomic uint32_t *uaddr2,
                  uint32_t val3) {
  return syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);
}

static long futex_n(_Atomic uint32_t *uaddr, int op, uint32_t val, long val2, _Atomic uint32_t *uaddr2, uint32_t val3) {
  return syscall(SYS_futex, uaddr, op, val, val2, uaddr2, val3);
}

static uint32_t self_tid(void) { return (uint32_t)syscall(SYS_gettid); }

static void pi_lock(_Atomic uint32_t *m) {
  uint32_t zero = 0;
  if (atomic_compare_exchange_strong(m, &zero, self_tid())) return;
  MUST(futex(m, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0) == 0);
}

static void pi_unlock(_Atomic uint32_t *m) {
  uint32_t me = self_tid();
  if (atomic_compare_exchange_strong(m, &me, 0)) return;
  MUST(futex(m, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0) == 0);
}

static _Atomic uint32_t cond_seq, lock_word, other_pi, plain_word;
static _Atomic int owned_right, returned_zero, in_wait;
static int counter;

/* Waits on cond_seq to be requeued onto lock_word; returns owning it. */
static void *requeue_waiter(void *arg) {
  (void)arg;
  uint32_t seq = atomic_load(&cond_seq);
  atomic_fetch_add(&in_wait, 1);
  long r = futex(&cond_seq, FUTEX_WAIT_REQUEUE_PI_PRIVATE, seq, NULL, &lock_word, 0);
  if (r == 0) {
    atomic_fetch_add(&returned_zero, 1);
    if ((atomic_load(&lock_word) & FUTEX_TID_MASK) == self_tid()) atomic_fetch_add(&owned_right, 1);
    counter++;
    pi_unlock(&lock_word);
  }
  return (void *)r;
}

static void start_waiters(pthread_t *t, int n) {
  atomic_store(&in_wait, 0);
  for (int i = 0; i < n; i++) MUST(pthread_create(&t[i], NULL, requeue_waiter, NULL) == 0);
  while (atomic_load(&in_wait) < n) usleep(1000);
  settle(); /* each is in its wait */
}

static void join_all(pthread_t *t, int n, const char *label) {
  int zero = 0;
  for (int i = 0; i < n; i++) {
    void *r;
    MUST(pthread_join(t[i], &r) == 0);
    if ((long)r == 0) zero++;
  }
  printf("%s: returned_0=%d owned=%d counter=%d\n", label, zero, atomic_load(&owned_right), counter);
  atomic_store(&owned_right, 0);
  atomic_store(&returned_zero, 0);
  counter = 0;
}

/* ---- the signaller holds the lock: every waiter is requeued ---- */

static void requeue_all_held(void) {
  pthread_t t[3];
  start_waiters(t, 3);
  pi_lock(&lock_word);
  uint32_t seq = atomic_fetch_add(&cond_seq, 1) + 1;
  SHOW("cmp_requeue_pi_held", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, INT_MAX, &lock_word, seq));
  printf("lock_waiters_bit=%d\n", (atomic_load(&lock_word) & FUTEX_WAITERS) != 0);
  pi_unlock(&lock_word); /* hands it to a requeued waiter, which hands it on */
  join_all(t, 3, "held");
}

/* ---- the lock is free: the top waiter takes it at once ---- */

static void requeue_free(void) {
  pthread_t t[3];
  start_waiters(t, 3);
  uint32_t seq = atomic_fetch_add(&cond_seq, 1) + 1;
  /* One taken, none moved; the taker unlocks. */
  SHOW("cmp_requeue_pi_free_wake_one", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, 0, &lock_word, seq));
  settle();
  printf("lock_after_one=%u\n", (unsigned)atomic_load(&lock_word));
  /* One taken, one moved behind it (it waits on the lock). */
  SHOW("cmp_requeue_pi_free_rest", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, INT_MAX, &lock_word, seq));
  join_all(t, 3, "free");
  printf("lock_at_end=%u\n", (unsigned)atomic_load(&lock_word));
}

/* ---- errors ---- */

static void *plain_waiter(void *arg) {
  (void)arg;
  atomic_fetch_add(&in_wait, 1);
  return (void *)futex(&plain_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

static void errors(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  struct timespec soon = now;
  soon.tv_nsec += 20 * 1000 * 1000;
  if (soon.tv_nsec >= 1000000000) {
    soon.tv_sec++;
    soon.tv_nsec -= 1000000000;
  }
  uint32_t seq = atomic_load(&cond_seq);
  SHOW("wait_requeue_pi_same_futex", futex(&cond_seq, FUTEX_WAIT_REQUEUE_PI_PRIVATE, seq, NULL, &cond_seq, 0));
  SHOW("wait_requeue_pi_changed", futex(&cond_seq, FUTEX_WAIT_REQUEUE_PI_PRIVATE, seq + 1, NULL, &lock_word, 0));
  SHOW("wait_requeue_pi_timeout", futex(&cond_seq, FUTEX_WAIT_REQUEUE_PI_PRIVATE, seq, &soon, &lock_word, 0));
  SHOW("cmp_requeue_pi_nr_wake_2", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PI_PRIVATE, 2, 1, &lock_word, seq));
  SHOW("cmp_requeue_pi_same", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, 1, &cond_seq, seq));
  SHOW("cmp_requeue_pi_changed", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, 1, &lock_word, seq + 1));
  SHOW("cmp_requeue_pi_nobody", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, 1, &lock_word, seq));
  SHOW("cmp_requeue_pi_negative", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, -1, &lock_word, seq));

  /* A waiter in WAIT_REQUEUE_PI meets plain calls and the wrong target. */
  pthread_t t[1];
  start_waiters(t, 1);
  seq = atomic_load(&cond_seq);
  SHOW("wake_meets_requeue_pi_waiter", futex(&cond_seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
  SHOW("cmp_requeue_meets_requeue_pi_waiter", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PRIVATE, 1, 1, &plain_word, seq));
  SHOW("cmp_requeue_pi_other_target", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, 1, &other_pi, seq));
  seq = atomic_fetch_add(&cond_seq, 1) + 1;
  SHOW("cmp_requeue_pi_right_target", futex_n(&cond_seq, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, 1, &lock_word, seq));
  join_all(t, 1, "one");

  /* A plain waiter meets CMP_REQUEUE_PI. */
  atomic_store(&in_wait, 0);
  pthread_t p;
  MUST(pthread_create(&p, NULL, plain_waiter, NULL) == 0);
  while (atomic_load(&in_wait) < 1) usleep(1000);
  settle();
  SHOW("cmp_requeue_pi_meets_plain_waiter", futex_n(&plain_word, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, 1, &lock_word, 0));
  SHOW("wake_plain", futex(&plain_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
  void *r;
  MUST(pthread_join(p, &r) == 0);
  printf("plain_waiter=%ld\n", (long)r);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  requeue_all_held();
  requeue_free();
  errors();
  return 0;
}
