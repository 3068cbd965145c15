/* The futex2 system calls on the simulated futex table (futex.c):
 * futex_waitv (449, Linux 5.16) and futex_wake, futex_wait, futex_requeue
 * (454-456, Linux 6.7), syscall(SYS_..., ...) on a simulated thread.
 *
 * This file checks their arguments as Linux does (flags, sizes, the
 * vector, timeouts) and hands the operation to futex.c, so a futex2 wait
 * and a futex(2) wake meet on the same word.  Errors are the kernel's:
 * EINVAL for unknown flags, a size other than 32 bits (the only one Linux
 * takes), a value or mask beyond 32 bits, a mask of 0, a vector of 0 or
 * more than FUTEX_WAITV_MAX entries or with reserved bits, a clock other
 * than CLOCK_MONOTONIC or CLOCK_REALTIME; EFAULT for a NULL word; EAGAIN,
 * ETIMEDOUT and EINTR as the waits give them (a futex2 wait restarts after
 * SA_RESTART handlers, timed or not: ERESTARTSYS).  Timeouts are absolute
 * on the clock given.  FUTEX2_NUMA and FUTEX2_MPOL (Linux 6.16) are not
 * simulated: a report naming them, and EINVAL.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <time.h>

#include "core/core.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "sync/sync.h"

/* The futex2 flags (uapi linux/futex.h of 6.7+; older headers lack them). */
#define F2_SIZE_U32 0x02u
#define F2_SIZE_MASK 0x03u
#define F2_NUMA 0x04u
#define F2_MPOL 0x08u
#define F2_PRIVATE 128u /* FUTEX_PRIVATE_FLAG */
#define F2_VALID (F2_SIZE_MASK | F2_NUMA | F2_MPOL | F2_PRIVATE)

/* struct futex_waitv as the kernel reads it (uapi linux/futex.h). */
struct waitv_entry {
  uint64_t val;
  uint64_t uaddr;
  uint32_t flags;
  uint32_t reserved;
};
_Static_assert(sizeof(struct waitv_entry) == sizeof(struct futex_waitv), "the kernel's futex_waitv");
_Static_assert(FUTEX_WAITV_MAX == 128, "Linux's vector bound");

/* 0, or the errno of a futex2 flags word. */
static int flags_check(uint32_t flags) {
  if (flags & ~F2_VALID) return EINVAL;
  if (flags & (F2_NUMA | F2_MPOL)) {
    detsim__sys_report("futex2 FUTEX2_NUMA/FUTEX2_MPOL", "per-node futexes are not simulated (EINVAL)");
    return EINVAL;
  }
  if ((flags & F2_SIZE_MASK) != F2_SIZE_U32) return EINVAL;
  return 0;
}

static bool fits_u32(uint64_t v) { return v <= UINT32_MAX; }

/* 0, or the errno of a timeout on clock: EINVAL for another clock. */
static int timeout_check(const struct timespec *ts, clockid_t clock) {
  if (ts == NULL) return 0;
  return clock == CLOCK_MONOTONIC || clock == CLOCK_REALTIME ? 0 : EINVAL;
}

static void call_point(const void *addr, uint32_t nr) {
  detsim__yield_aux(DETSIM_EV_futex_call, addr, detsim__sys_caller, nr);
}

long detsim__sys_futex_waitv(const long a[6]) {
  const struct waitv_entry *v = (const struct waitv_entry *)a[0];
  unsigned n = (unsigned)a[1], flags = (unsigned)a[2];
  const struct timespec *ts = (const struct timespec *)a[3];
  clockid_t clock = (clockid_t)a[4];
  call_point(v, 449);
  if (flags != 0 || n == 0 || n > FUTEX_WAITV_MAX || v == NULL) return detsim__sys_fail(EINVAL);
  int bad = timeout_check(ts, clock);
  if (bad) return detsim__sys_fail(bad);
  const uint32_t *keys[FUTEX_WAITV_MAX];
  uint32_t vals[FUTEX_WAITV_MAX];
  for (unsigned i = 0; i < n; i++) {
    if (v[i].reserved != 0) return detsim__sys_fail(EINVAL);
    bad = flags_check(v[i].flags);
    if (bad) return detsim__sys_fail(bad);
    if (!fits_u32(v[i].val)) return detsim__sys_fail(EINVAL);
    keys[i] = (const uint32_t *)(uintptr_t)v[i].uaddr;
    vals[i] = (uint32_t)v[i].val;
  }
  return detsim__futex_waitv(keys, vals, n, ts, clock);
}

long detsim__sys_futex_wake(const long a[6]) {
  uint32_t *uaddr = (uint32_t *)a[0];
  uint64_t mask = (uint64_t)a[1];
  int nr = (int)a[2];
  unsigned flags = (unsigned)a[3];
  call_point(uaddr, 454);
  int bad = flags_check(flags);
  if (bad) return detsim__sys_fail(bad);
  if (!fits_u32(mask)) return detsim__sys_fail(EINVAL);
  return detsim__futex_wake2(uaddr, nr, (uint32_t)mask);
}

long detsim__sys_futex_wait(const long a[6]) {
  uint32_t *uaddr = (uint32_t *)a[0];
  uint64_t val = (uint64_t)a[1], mask = (uint64_t)a[2];
  unsigned flags = (unsigned)a[3];
  const struct timespec *ts = (const struct timespec *)a[4];
  clockid_t clock = (clockid_t)a[5];
  call_point(uaddr, 455);
  int bad = flags_check(flags);
  if (bad) return detsim__sys_fail(bad);
  if (!fits_u32(val) || !fits_u32(mask)) return detsim__sys_fail(EINVAL);
  bad = timeout_check(ts, clock);
  if (bad) return detsim__sys_fail(bad);
  return detsim__futex_wait2(uaddr, (uint32_t)val, (uint32_t)mask, ts, clock);
}

long detsim__sys_futex_requeue(const long a[6]) {
  const struct waitv_entry *v = (const struct waitv_entry *)a[0];
  unsigned flags = (unsigned)a[1];
  int nr_wake = (int)a[2], nr_requeue = (int)a[3];
  call_point(v, 456);
  if (flags != 0 || v == NULL) return detsim__sys_fail(EINVAL);
  for (unsigned i = 0; i < 2; i++) {
    if (v[i].reserved != 0) return detsim__sys_fail(EINVAL);
    int bad = flags_check(v[i].flags);
    if (bad) return detsim__sys_fail(bad);
    if (!fits_u32(v[i].val)) return detsim__sys_fail(EINVAL);
  }
  return detsim__futex_cmp_requeue2((uint32_t *)(uintptr_t)v[0].uaddr, nr_wake, nr_requeue,
                                    (uint32_t *)(uintptr_t)v[1].uaddr, (uint32_t)v[0].val);
}
