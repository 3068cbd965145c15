/* The futex2 system calls as Linux gives them, natively and simulated:
 * futex_waitv (449: the index of the futex woken, by futex(2) or futex2
 * wakes, and after a requeue moved an entry), futex_wait / futex_wake
 * (454-456, Linux 6.7: bitsets, a wake of 0, absolute timeouts on either
 * clock), futex_requeue, and the kernel's errors.  Every futex is private
 * (FUTEX2_PRIVATE, FUTEX_PRIVATE_FLAG) in both APIs, as their keys must
 * match.  A native kernel without these calls makes the native run fail
 * saying so: this test does not pass without them. */
#include "../../net/conformance/conf.h"

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#define NR_FUTEX_WAITV 449
#define NR_FUTEX_WAKE 454
#define NR_FUTEX_WAIT 455
#define NR_FUTEX_REQUEUE 456
#define F2_U8 0x00u
#define F2_U32 0x02u
#define F2_U64 0x03u
#define F2_PRIVATE 128u
#define F2 (F2_U32 | F2_PRIVATE)

static _Atomic uint32_t fa, fb, fc, fx, fy;
static _Atomic int in_wait;

static long waitv(struct futex_waitv *v, unsigned n, unsigned flags, const struct timespec *ts, clockid_t clock) {
  return syscall(NR_FUTEX_WAITV, v, n, flags, ts, clock);
}
static long f2_wake(_Atomic uint32_t *w, unsigned long mask, int nr, unsigned flags) {
  return syscall(NR_FUTEX_WAKE, w, mask, nr, flags);
}
static long f2_wait(_Atomic uint32_t *w, unsigned long val, unsigned long mask, unsigned flags,
                    const struct timespec *ts, clockid_t clock) {
  return syscall(NR_FUTEX_WAIT, w, val, mask, flags, ts, clock);
}
static long f2_requeue(struct futex_waitv *v, unsigned flags, int nr_wake, int nr_requeue) {
  return syscall(NR_FUTEX_REQUEUE, v, flags, nr_wake, nr_requeue);
}
static long f1_wake(_Atomic uint32_t *w, int nr) { return syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, nr, NULL, NULL, 0); }

static struct futex_waitv entry(_Atomic uint32_t *w, uint64_t val) {
  return (struct futex_waitv){.val = val, .uaddr = (uintptr_t)w, .flags = F2};
}

static struct timespec soon(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  t.tv_nsec += 20 * 1000 * 1000;
  if (t.tv_nsec >= 1000000000) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000;
  }
  return t;
}

/* ---- a waiter thread: waitv on fa, fb; or futex_wait on one ---- */

static void *waitv_ab(void *arg) {
  (void)arg;
  struct futex_waitv v[2] = {entry(&fa, 0), entry(&fb, 0)};
  atomic_fetch_add(&in_wait, 1);
  long r = waitv(v, 2, 0, NULL, 0);
  return (void *)r;
}

struct wait_arg {
  _Atomic uint32_t *w;
  unsigned long mask;
};

static void *wait_one(void *arg) {
  struct wait_arg *a = arg;
  atomic_fetch_add(&in_wait, 1);
  return (void *)f2_wait(a->w, 0, a->mask, F2, NULL, 0);
}

static void start(pthread_t *t, int n, void *(*fn)(void *), void *arg) {
  atomic_store(&in_wait, 0);
  for (int i = 0; i < n; i++) MUST(pthread_create(&t[i], NULL, fn, arg) == 0);
  while (atomic_load(&in_wait) < n) usleep(1000);
  settle(); /* each is in its wait */
}

static void join_show(pthread_t *t, int n, const char *label) {
  for (int i = 0; i < n; i++) {
    void *r;
    MUST(pthread_join(t[i], &r) == 0);
    printf("%s=%ld\n", label, (long)r);
  }
}

static void waitv_cases(void) {
  pthread_t t[1];
  start(t, 1, waitv_ab, NULL);
  SHOW("futex1_wake_b", f1_wake(&fb, 1));
  join_show(t, 1, "waitv_woken_index");

  start(t, 1, waitv_ab, NULL);
  SHOW("futex2_wake_a", f2_wake(&fa, FUTEX_BITSET_MATCH_ANY, 1, F2));
  join_show(t, 1, "waitv_woken_index");

  /* A requeue moves the entry on fa to fc: a wake on fc names index 0. */
  start(t, 1, waitv_ab, NULL);
  struct futex_waitv rq[2] = {entry(&fa, 0), entry(&fc, 0)};
  SHOW("futex_requeue_a_to_c", f2_requeue(rq, 0, 0, 1));
  SHOW("futex2_wake_a_after", f2_wake(&fa, FUTEX_BITSET_MATCH_ANY, 1, F2));
  SHOW("futex2_wake_c", f2_wake(&fc, FUTEX_BITSET_MATCH_ANY, 1, F2));
  join_show(t, 1, "waitv_woken_index");

  struct futex_waitv v[2] = {entry(&fa, 0), entry(&fb, 1)};
  SHOW("waitv_value_differs", waitv(v, 2, 0, NULL, 0));
  v[1].val = 0;
  struct timespec ts = soon(CLOCK_MONOTONIC);
  SHOW("waitv_timeout_monotonic", waitv(v, 2, 0, &ts, CLOCK_MONOTONIC));
  ts = soon(CLOCK_REALTIME);
  SHOW("waitv_timeout_realtime", waitv(v, 2, 0, &ts, CLOCK_REALTIME));
  SHOW("waitv_bad_clock", waitv(v, 2, 0, &ts, CLOCK_BOOTTIME));
  SHOW("waitv_flags", waitv(v, 2, 1, NULL, 0));
  SHOW("waitv_none", waitv(v, 0, 0, NULL, 0));
  SHOW("waitv_too_many", waitv(v, 129, 0, NULL, 0));
  SHOW("waitv_null", waitv(NULL, 1, 0, NULL, 0));
  struct futex_waitv bad = entry(&fa, 0);
  bad.__reserved = 1;
  SHOW("waitv_reserved", waitv(&bad, 1, 0, NULL, 0));
  bad = entry(&fa, 0);
  bad.flags = F2_U8 | F2_PRIVATE;
  SHOW("waitv_size_u8", waitv(&bad, 1, 0, NULL, 0));
  bad.flags = F2 | 0x100;
  SHOW("waitv_unknown_flag", waitv(&bad, 1, 0, NULL, 0));
  bad = entry(&fa, 1ull << 32);
  SHOW("waitv_value_beyond_32", waitv(&bad, 1, 0, NULL, 0));
  bad = entry(&fa, 0);
  bad.uaddr += 1;
  SHOW("waitv_misaligned", waitv(&bad, 1, 0, NULL, 0));
  bad.uaddr = 0;
  SHOW("waitv_null_word", waitv(&bad, 1, 0, NULL, 0));
}

static void wait_wake_cases(void) {
  pthread_t t[2];
  struct wait_arg one = {&fx, 1};
  start(t, 1, wait_one, &one);
  SHOW("wake_other_bits", f2_wake(&fx, 2, 1, F2));
  SHOW("wake_zero", f2_wake(&fx, 1, 0, F2));
  SHOW("wake_matching_bits", f2_wake(&fx, 3, 1, F2));
  join_show(t, 1, "wait_bits");

  SHOW("wait_value_differs", f2_wait(&fx, 1, ~0ul >> 32, F2, NULL, 0));
  SHOW("wait_mask_zero", f2_wait(&fx, 0, 0, F2, NULL, 0));
  SHOW("wait_mask_beyond_32", f2_wait(&fx, 0, 1ul << 32, F2, NULL, 0));
  SHOW("wait_value_beyond_32", f2_wait(&fx, 1ul << 32, 1, F2, NULL, 0));
  SHOW("wait_size_u64", f2_wait(&fx, 0, 1, F2_U64 | F2_PRIVATE, NULL, 0));
  SHOW("wait_unknown_flag", f2_wait(&fx, 0, 1, F2 | 0x100, NULL, 0));
  struct timespec ts = soon(CLOCK_MONOTONIC);
  SHOW("wait_timeout_monotonic", f2_wait(&fx, 0, 1, F2, &ts, CLOCK_MONOTONIC));
  ts = soon(CLOCK_REALTIME);
  SHOW("wait_timeout_realtime", f2_wait(&fx, 0, 1, F2, &ts, CLOCK_REALTIME));
  SHOW("wait_bad_clock", f2_wait(&fx, 0, 1, F2, &ts, CLOCK_BOOTTIME));
  SHOW("wait_misaligned", f2_wait((_Atomic uint32_t *)((char *)&fx + 1), 0, 1, F2, NULL, 0));
  SHOW("wake_mask_zero", f2_wake(&fx, 0, 1, F2));
  SHOW("wake_size_u8", f2_wake(&fx, 1, 1, F2_U8 | F2_PRIVATE));
  SHOW("wake_nobody", f2_wake(&fx, 1, 1, F2));

  /* futex_requeue: compare, wake one, move one. */
  struct wait_arg any = {&fx, FUTEX_BITSET_MATCH_ANY};
  start(t, 2, wait_one, &any);
  struct futex_waitv rq[2] = {entry(&fx, 1), entry(&fy, 0)};
  SHOW("requeue_value_differs", f2_requeue(rq, 0, 1, 1));
  rq[0].val = 0;
  SHOW("requeue_flags", f2_requeue(rq, 1, 1, 1));
  SHOW("requeue_negative", f2_requeue(rq, 0, -1, 1));
  SHOW("requeue_null", f2_requeue(NULL, 0, 1, 1));
  SHOW("requeue_wake_one_move_one", f2_requeue(rq, 0, 1, 1));
  settle();
  SHOW("futex1_wake_y", f1_wake(&fy, 1));
  join_show(t, 2, "requeued_wait");
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  /* The native kernel has the calls, or this test fails here. */
  if (f2_wake(&fa, 1, 1, F2) < 0 && errno == ENOSYS) {
    printf("FAILED: this kernel has no futex_wake (454): futex2 needs Linux 6.7\n");
    return 1;
  }
  struct futex_waitv probe = entry(&fa, 1);
  if (waitv(&probe, 1, 0, NULL, 0) < 0 && errno == ENOSYS) {
    printf("FAILED: this kernel has no futex_waitv (449): it needs Linux 5.16\n");
    return 1;
  }
  waitv_cases();
  wait_wake_cases();
  return 0;
}
