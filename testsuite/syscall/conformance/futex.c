/* Raw futexes as Linux gives them, natively and simulated: a mutex and a
 * condition built on FUTEX_WAIT/FUTEX_WAKE, EAGAIN and timeouts, a
 * CMP_REQUEUE, WAKE_OP, WAIT_BITSET/WAKE_BITSET, a priority-inheritance
 * lock (LOCK_PI/TRYLOCK_PI/UNLOCK_PI, the owner's tid in the word), and the
 * kernel's errors.  Waits that must have started before a wake are given
 * time to (settle()): natively real, simulated virtual. */
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

/* ---- a mutex: 0 free, 1 locked, 2 locked with waiters ---- */

static void mutex_lock(_Atomic uint32_t *m) {
  uint32_t c = 0;
  if (atomic_compare_exchange_strong(m, &c, 1)) return;
  if (c != 2) c = atomic_exchange(m, 2);
  while (c != 0) {
    futex(m, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
    c = atomic_exchange(m, 2);
  }
}

static void mutex_unlock(_Atomic uint32_t *m) {
  if (atomic_fetch_sub(m, 1) != 1) {
    atomic_store(m, 0);
    futex(m, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  }
}

/* ---- a condition: waiters wait for the sequence word to move ---- */

struct cond { _Atomic uint32_t seq; };

static void cond_wait(struct cond *c, _Atomic uint32_t *m) {
  uint32_t seq = atomic_load(&c->seq);
  mutex_unlock(m);
  futex(&c->seq, FUTEX_WAIT_PRIVATE, seq, NULL, NULL, 0);
  mutex_lock(m);
}

static void cond_signal(struct cond *c) {
  atomic_fetch_add(&c->seq, 1);
  futex(&c->seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static _Atomic uint32_t lock;
static struct cond nonempty, nonfull;
static int queue[4], q_len;
static long counter, consumed_sum;

#define ITEMS 200

static void *adder(void *arg) {
  (void)arg;
  for (int i = 0; i < 500; i++) {
    mutex_lock(&lock);
    long v = counter;
    sched_yield();
    counter = v + 1;
    mutex_unlock(&lock);
  }
  return NULL;
}

static void *producer(void *arg) {
  (void)arg;
  for (int i = 1; i <= ITEMS; i++) {
    mutex_lock(&lock);
    while (q_len == 4) cond_wait(&nonfull, &lock);
    queue[q_len++] = i;
    cond_signal(&nonempty);
    mutex_unlock(&lock);
  }
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  for (int i = 0; i < ITEMS; i++) {
    mutex_lock(&lock);
    while (q_len == 0) cond_wait(&nonempty, &lock);
    consumed_sum += queue[--q_len];
    cond_signal(&nonfull);
    mutex_unlock(&lock);
  }
  return NULL;
}

static void mutex_and_cond(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++) MUST(pthread_create(&t[i], NULL, adder, NULL) == 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  printf("mutex_counter=%ld\n", counter);
  MUST(pthread_create(&t[0], NULL, producer, NULL) == 0);
  MUST(pthread_create(&t[1], NULL, consumer, NULL) == 0);
  pthread_join(t[0], NULL);
  pthread_join(t[1], NULL);
  printf("cond_consumed_sum=%ld\n", consumed_sum);
}

/* ---- single calls, waiters parked first ---- */

static _Atomic uint32_t wa, wb, arrived;
struct waiter { _Atomic uint32_t *word; int op; uint32_t bitset; long result; int err; };

static void *wait_once(void *arg) {
  struct waiter *w = arg;
  atomic_fetch_add(&arrived, 1);
  errno = 0;
  w->result = futex(w->word, w->op, 0, NULL, NULL, w->bitset);
  w->err = errno;
  return NULL;
}

static void park(pthread_t *t, struct waiter *w, int n) {
  atomic_store(&arrived, 0);
  for (int i = 0; i < n; i++) MUST(pthread_create(&t[i], NULL, wait_once, &w[i]) == 0);
  while (atomic_load(&arrived) < (uint32_t)n) usleep(1000);
  settle();
}

static void show_waiters(const char *label, struct waiter *w, pthread_t *t, int n) {
  int ok = 0;
  for (int i = 0; i < n; i++) {
    pthread_join(t[i], NULL);
    ok += w[i].result == 0;
  }
  printf("%s_returned_0=%d\n", label, ok);
}

static void requeue_and_wake_op(void) {
  pthread_t t[3];
  struct waiter w[3];
  for (int i = 0; i < 3; i++) w[i] = (struct waiter){&wa, FUTEX_WAIT_PRIVATE, 0, -9, 0};
  park(t, w, 3);
  SHOW("cmp_requeue_stale", futex(&wa, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)(long)INT_MAX, &wb, 1));
  /* One woken, the other two moved onto wb: 3 in all. */
  SHOW("cmp_requeue", futex(&wa, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)(long)INT_MAX, &wb, 0));
  settle();
  SHOW("wake_a_after_requeue", futex(&wa, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0));
  SHOW("wake_b_after_requeue", futex(&wb, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0));
  show_waiters("requeued", w, t, 3);

  /* WAKE_OP: wb += 1 (old 0), wake one on wa, and one on wb since old == 0. */
  atomic_store(&wb, 0);
  w[0] = (struct waiter){&wa, FUTEX_WAIT, 0, -9, 0};
  w[1] = (struct waiter){&wb, FUTEX_WAIT, 0, -9, 0};
  park(t, w, 2);
  SHOW("wake_op", futex(&wa, FUTEX_WAKE_OP, 1, (void *)1L, &wb, FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0)));
  printf("wake_op_b=%u\n", atomic_load(&wb));
  show_waiters("wake_op", w, t, 2);
  /* Set wb to 1 << 4 (OPARG_SHIFT); old 1 is not > 10: nobody on wb is woken. */
  SHOW("wake_op_no_cmp", futex(&wa, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1L, &wb,
                               FUTEX_OP(FUTEX_OP_SET | FUTEX_OP_OPARG_SHIFT, 4, FUTEX_OP_CMP_GT, 10)));
  printf("wake_op_b_shifted=%u\n", atomic_load(&wb));
  SHOW("wake_op_bad_op", futex(&wa, FUTEX_WAKE_OP, 1, (void *)1L, &wb, 7u << 28));

  /* Bitsets: a waiter on bit 0 is not woken for bit 1. */
  atomic_store(&wa, 0);
  w[0] = (struct waiter){&wa, FUTEX_WAIT_BITSET_PRIVATE, 1, -9, 0};
  park(t, w, 1);
  SHOW("wake_bitset_other_bit", futex(&wa, FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, NULL, NULL, 2));
  SHOW("wake_bitset_its_bit", futex(&wa, FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, NULL, NULL, 1 | 4));
  show_waiters("bitset", w, t, 1);
  /* FUTEX_WAKE of 0 waiters wakes one, as Linux's loop does. */
  w[0] = (struct waiter){&wa, FUTEX_WAIT_PRIVATE, 0, -9, 0};
  park(t, w, 1);
  SHOW("wake_zero", futex(&wa, FUTEX_WAKE_PRIVATE, 0, NULL, NULL, 0));
  show_waiters("wake_zero", w, t, 1);
  SHOW("wake_nobody", futex(&wa, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
}

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void waits_and_errors(void) {
  _Atomic uint32_t word = 5;
  SHOW("wait_value_differs", futex(&word, FUTEX_WAIT_PRIVATE, 4, NULL, NULL, 0));
  double t0 = mono();
  SHOW("wait_relative_timeout", futex(&word, FUTEX_WAIT_PRIVATE, 5, &(struct timespec){0, 40000000}, NULL, 0));
  printf("waited_40ms=%d\n", mono() - t0 >= 0.040);
  struct timespec abs;
  clock_gettime(CLOCK_MONOTONIC, &abs);
  abs.tv_nsec += 30000000;
  if (abs.tv_nsec >= 1000000000) { abs.tv_sec++; abs.tv_nsec -= 1000000000; }
  SHOW("wait_bitset_abs_timeout", futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 5, &abs, NULL, FUTEX_BITSET_MATCH_ANY));
  struct timespec mono_now;
  clock_gettime(CLOCK_MONOTONIC, &mono_now);
  printf("reached_deadline=%d\n", mono_now.tv_sec > abs.tv_sec ||
                                     (mono_now.tv_sec == abs.tv_sec && mono_now.tv_nsec >= abs.tv_nsec));
  struct timespec rt;
  clock_gettime(CLOCK_REALTIME, &rt);
  SHOW("wait_bitset_realtime_past",
       futex(&word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 5, &rt, NULL, FUTEX_BITSET_MATCH_ANY));
  SHOW("wait_bitset_zero", futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 5, NULL, NULL, 0));
  SHOW("wait_bad_timeout", futex(&word, FUTEX_WAIT_PRIVATE, 5, &(struct timespec){0, 1000000000}, NULL, 0));
  SHOW("wait_unaligned", syscall(SYS_futex, (char *)&word + 1, FUTEX_WAIT_PRIVATE, 5, NULL, NULL, 0));
  SHOW("wake_realtime_flag", futex(&word, FUTEX_WAKE_PRIVATE | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0));
  SHOW("unknown_op", futex(&word, 99, 0, NULL, NULL, 0));
  SHOW("requeue_negative", futex(&word, FUTEX_REQUEUE_PRIVATE, (uint32_t)-1, NULL, &word, 0));
}

/* ---- a priority-inheritance lock: the owner's tid in the word ---- */

static _Atomic uint32_t pi;
static long pi_counter;
static _Atomic int pi_owner_mismatch;

static void pi_lock(void) {
  uint32_t tid = (uint32_t)syscall(SYS_gettid), zero = 0;
  if (!atomic_compare_exchange_strong(&pi, &zero, tid)) MUST(futex(&pi, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0) == 0);
  if ((atomic_load(&pi) & FUTEX_TID_MASK) != tid) atomic_fetch_add(&pi_owner_mismatch, 1);
}

static void pi_unlock(void) {
  uint32_t tid = (uint32_t)syscall(SYS_gettid);
  if (!atomic_compare_exchange_strong(&pi, &tid, 0)) MUST(futex(&pi, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0) == 0);
}

static void *pi_worker(void *arg) {
  (void)arg;
  for (int i = 0; i < 200; i++) {
    pi_lock();
    long v = pi_counter;
    if (i % 7 == 0) usleep(100);
    pi_counter = v + 1;
    pi_unlock();
  }
  return NULL;
}

static void *pi_try_other(void *arg) {
  (void)arg;
  SHOW("trylock_pi_held", futex(&pi, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
  SHOW("unlock_pi_not_owner", futex(&pi, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
  return NULL;
}

static void pi_lock_test(void) {
  pthread_t t[3];
  for (int i = 0; i < 3; i++) MUST(pthread_create(&t[i], NULL, pi_worker, NULL) == 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  printf("pi_counter=%ld owner_mismatches=%d word_after=%u\n", pi_counter, atomic_load(&pi_owner_mismatch),
         atomic_load(&pi));
  SHOW("lock_pi_free", futex(&pi, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0));
  printf("owner_is_tid=%d\n", atomic_load(&pi) == (uint32_t)syscall(SYS_gettid));
  SHOW("lock_pi_own", futex(&pi, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0));
  SHOW("trylock_pi_own", futex(&pi, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
  MUST(pthread_create(&t[0], NULL, pi_try_other, NULL) == 0);
  pthread_join(t[0], NULL);
  SHOW("unlock_pi", futex(&pi, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
  printf("word_unlocked=%u\n", atomic_load(&pi));
  SHOW("trylock_pi_free", futex(&pi, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
  SHOW("unlock_pi_again", futex(&pi, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
}

int main(void) {
  mutex_and_cond();
  requeue_and_wake_op();
  waits_and_errors();
  pi_lock_test();
  printf("done\n");
  return 0;
}
