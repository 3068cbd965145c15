/* The simulated futex: syscall(SYS_futex, ...) on a simulated thread.
 *
 * A futex is keyed by its address within the process (FUTEX_PRIVATE_FLAG or
 * not: a world's processes share no memory).  Waiters are records in one
 * bounded table (DETSIM_FUTEX_WAITERS_MAX); a waiting thread blocks in the
 * scheduler on "my record was woken", so a wait is a yield point on virtual
 * time and a deadlock names it.  Which waiters a wake, a requeue or an
 * unlock picks is drawn from the seed among those that match and have the
 * highest real-time priority (Linux takes them in priority, then FIFO
 * order: one of the orders drawn here).
 *
 * Rules: only the baton holder touches the table, and nothing yields between
 * looking at a futex word and queueing on it, so the compare-and-block is
 * atomic as the kernel's is.  Every call is a yield point (futex_call) before
 * it reads the word, and wakes are events (futex_wake, the count), so a
 * replay checks both.  Errors are the kernel's: EAGAIN when the word differs,
 * ETIMEDOUT, EINTR as Linux gives it (a wait without timeout restarts after
 * SA_RESTART handlers, and then compares the word again), EINVAL, ENOSYS for
 * an operation Linux does not have.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "time/time.h"
#include "machine/machine.h"
#include "sched/sched.h"
#include "sync/sync.h"
#include "intercept/intercept.h"

struct futex_waiter {
  bool used;
  bool woken;       /* picked by a wake (or, for LOCK_PI, handed the lock) */
  bool pi;          /* waits in LOCK_PI/LOCK_PI2, or requeued onto a PI futex */
  bool requeue_pi;  /* waits in WAIT_REQUEUE_PI (on key until requeued to key2) */
  const uint32_t *key2; /* WAIT_REQUEUE_PI's PI futex */
  uint32_t bitset;  /* FUTEX_WAIT_BITSET's mask (all bits for FUTEX_WAIT) */
  pid_t tid;        /* the waiter's id as gettid shows it: a PI owner word */
  const uint32_t *key;
  /* futex_waitv: the n futexes it waits on (key unused; a requeue moves
   * one), and which one woke it */
  const uint32_t **vkeys;
  unsigned nv;
  int woken_index;
  detsim_thread *thread;
};

static struct futex_waiter waiters[DETSIM_FUTEX_WAITERS_MAX];
static unsigned waiters_used; /* records [0, waiters_used) may be in use */

static bool waiter_woken(void *arg) { return ((struct futex_waiter *)arg)->woken; }

static struct futex_waiter *waiter_add(const uint32_t *key, uint32_t bitset, bool pi) {
  for (unsigned i = 0; i < DETSIM_FUTEX_WAITERS_MAX; i++) {
    struct futex_waiter *w = &waiters[i];
    if (w->used) continue;
    *w = (struct futex_waiter){.used = true, .pi = pi, .bitset = bitset, .key = key,
                               .tid = detsim__sys_self_tid(), .thread = detsim__self()};
    if (i >= waiters_used) waiters_used = i + 1;
    return w;
  }
  /* Each live thread waits on one futex at most, and the table has a record
   * for each: a full table is a broken invariant, not a limit to reach. */
  CHECK(!"a futex waiter record for every live thread (DETSIM_FUTEX_WAITERS_MAX)");
  return NULL;
}

/* Where the waiter waits on key: 0 for a single wait, its index for a
 * vectored one; -1 when it does not. */
static int key_index(const struct futex_waiter *w, const uint32_t *key) {
  if (w->nv == 0) return w->key == key ? 0 : -1;
  for (unsigned i = 0; i < w->nv; i++)
    if (w->vkeys[i] == key) return (int)i;
  return -1;
}

/* A wake on key picked w. */
static void wake_one(struct futex_waiter *w, const uint32_t *key) {
  w->woken = true;
  w->woken_index = key_index(w, key);
}

/* A requeue moves w's wait on `from` to `to`. */
static void retarget(struct futex_waiter *w, const uint32_t *from, const uint32_t *to) {
  if (w->nv == 0) w->key = to;
  else w->vkeys[key_index(w, from)] = to;
}

static void waiter_remove(struct futex_waiter *w) {
  CHECK(w->used);
  w->used = false;
  while (waiters_used > 0 && !waiters[waiters_used - 1].used) waiters_used--;
}

/* The waiters on key that a wake may pick: not woken yet, sharing a bit of
 * `bitset`, PI waiters or plain ones as `pi` says (a WAIT_REQUEUE_PI one
 * not yet requeued is neither: only CMP_REQUEUE_PI takes it). */
static unsigned candidates(const uint32_t *key, uint32_t bitset, bool pi, struct futex_waiter **out) {
  unsigned n = 0;
  for (unsigned i = 0; i < waiters_used; i++) {
    struct futex_waiter *w = &waiters[i];
    if (w->used && !w->woken && key_index(w, key) >= 0 && w->pi == pi && (w->bitset & bitset) != 0 &&
        (pi || !w->requeue_pi))
      out[n++] = w;
  }
  return n;
}

/* The WAIT_REQUEUE_PI waiters still on key (not requeued). */
static unsigned requeue_pi_waiters(const uint32_t *key, struct futex_waiter **out) {
  unsigned n = 0;
  for (unsigned i = 0; i < waiters_used; i++) {
    struct futex_waiter *w = &waiters[i];
    if (w->used && !w->woken && w->key == key && w->requeue_pi && !w->pi) out[n++] = w;
  }
  return n;
}

/* Linux refuses a plain wake or requeue that meets a WAIT_REQUEUE_PI
 * waiter (EINVAL); here before it wakes any, whatever their order. */
static bool meets_requeue_pi(const uint32_t *key) {
  struct futex_waiter *w[DETSIM_FUTEX_WAITERS_MAX];
  return requeue_pi_waiters(key, w) != 0;
}

/* One of the candidates of the highest priority (Linux keeps its waiters
 * in priority order), drawn from the seed (a plan's wake decision). */
static struct futex_waiter *choose(struct futex_waiter **cands, unsigned n) {
  CHECK_GE(n, 1);
  detsim_thread *threads[DETSIM_FUTEX_WAITERS_MAX];
  for (unsigned i = 0; i < n; i++) threads[i] = cands[i]->thread;
  unsigned top = detsim__machine_rt_top(threads, n);
  detsim_thread *t = detsim__choose_waiter(threads, top);
  for (unsigned i = 0; i < n; i++)
    if (cands[i]->thread == t) return cands[i];
  CHECK(!"the chosen waiter is a candidate");
  return NULL;
}

static bool has_pi_waiters(const uint32_t *key) {
  for (unsigned i = 0; i < waiters_used; i++)
    if (waiters[i].used && !waiters[i].woken && waiters[i].pi && waiters[i].key == key) return true;
  return false;
}

static void record_wake(const uint32_t *key, long n) {
  detsim__event(DETSIM_EV_futex_wake, detsim__self(), key, detsim__sys_caller, (uint32_t)n);
}

/* Wakes up to nr plain waiters on key sharing a bit with bitset.  As
 * Linux's futex_wake, one is woken even when nr <= 0 (there is one). */
static long wake(const uint32_t *key, int nr, uint32_t bitset) {
  struct futex_waiter *cands[DETSIM_FUTEX_WAITERS_MAX];
  long woken = 0;
  do {
    unsigned n = candidates(key, bitset, false, cands);
    if (n == 0) break;
    wake_one(choose(cands, n), key);
    woken++;
  } while (woken < nr);
  return woken;
}

static bool word_ok(const uint32_t *uaddr) { return uaddr != NULL && ((uintptr_t)uaddr & 3) == 0; }

/* ---- waits ---- */

struct timeout {
  bool given;
  bool absolute;
  clockid_t clock;
  struct timespec ts;
};

/* The virtual deadline of a timeout: 0 or EINVAL. */
static int deadline_of(const struct timeout *to, uint64_t *deadline) {
  *deadline = DETSIM_NO_DEADLINE;
  if (!to->given) return 0;
  if (to->absolute) return detsim__deadline_from_abstime(to->clock, &to->ts, deadline);
  if (!detsim__timespec_valid(&to->ts)) return EINVAL;
  *deadline = detsim__deadline_after(&to->ts);
  return 0;
}

/* `restart_timed`: a timed wait restarts after SA_RESTART handlers too
 * (futex2's futex_wait: ERESTARTSYS whatever its timeout). */
static long futex_wait(uint32_t *uaddr, uint32_t val, const struct timeout *to, uint32_t bitset, bool restart_timed) {
  if (bitset == 0) return detsim__sys_fail(EINVAL);
  uint64_t deadline;
  int bad = deadline_of(to, &deadline);
  if (bad) return detsim__sys_fail(bad);
  for (;;) {
    if (__atomic_load_n(uaddr, __ATOMIC_SEQ_CST) != val) return detsim__sys_fail(EAGAIN);
    struct futex_waiter *w = waiter_add(uaddr, bitset, false);
    int r = detsim__block_intr(DETSIM_EV_futex_wait, uaddr, waiter_woken, w, deadline);
    bool woken = w->woken;
    waiter_remove(w);
    if (woken) return 0;
    CHECK(r == ETIMEDOUT || r == EINTR);
    if (r == ETIMEDOUT) return detsim__sys_fail(ETIMEDOUT);
    /* A handler ran: Linux restarts an untimed wait after SA_RESTART
     * handlers (the call runs again, comparing the word anew). */
    if ((to->given && !restart_timed) || !detsim__restartable()) return detsim__sys_fail(EINTR);
  }
}

/* ---- requeue and wake-op ---- */

static long futex_requeue(uint32_t *uaddr, int nr_wake, int nr_requeue, uint32_t *uaddr2, bool cmp, uint32_t val3) {
  if (nr_wake < 0 || nr_requeue < 0) return detsim__sys_fail(EINVAL);
  if (!word_ok(uaddr2)) return detsim__sys_fail(uaddr2 == NULL ? EFAULT : EINVAL);
  if (cmp && __atomic_load_n(uaddr, __ATOMIC_SEQ_CST) != val3) return detsim__sys_fail(EAGAIN);
  if (meets_requeue_pi(uaddr)) return detsim__sys_fail(EINVAL);
  struct futex_waiter *cands[DETSIM_FUTEX_WAITERS_MAX];
  long count = 0;
  /* As Linux's futex_requeue: nr_wake of 0 wakes none, and the result
   * counts the woken and the requeued (for FUTEX_REQUEUE too). */
  for (int i = 0; i < nr_wake; i++) {
    unsigned n = candidates(uaddr, FUTEX_BITSET_MATCH_ANY, false, cands);
    if (n == 0) break;
    wake_one(choose(cands, n), uaddr);
    count++;
  }
  if (uaddr2 != uaddr) {
    for (int i = 0; i < nr_requeue; i++) {
      unsigned n = candidates(uaddr, FUTEX_BITSET_MATCH_ANY, false, cands);
      if (n == 0) break;
      retarget(choose(cands, n), uaddr, uaddr2);
      count++;
    }
  } else {
    unsigned n = candidates(uaddr, FUTEX_BITSET_MATCH_ANY, false, cands);
    count += n < (unsigned)nr_requeue ? n : (unsigned)nr_requeue;
  }
  record_wake(uaddr, count);
  return count;
}

static int sign_extend12(uint32_t v) { return (int)(v << 20) >> 20; }

static long futex_wake_op(uint32_t *uaddr, int nr_wake, int nr_wake2, uint32_t *uaddr2, uint32_t encoded) {
  unsigned op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
  int oparg = sign_extend12((encoded >> 12) & 0xfff), cmparg = sign_extend12(encoded & 0xfff);
  if (!word_ok(uaddr2)) return detsim__sys_fail(uaddr2 == NULL ? EFAULT : EINVAL);
  if (op > FUTEX_OP_XOR || cmp > FUTEX_OP_CMP_GE) return detsim__sys_fail(ENOSYS);
  if (encoded & ((uint32_t)FUTEX_OP_OPARG_SHIFT << 28)) oparg = (int)(1u << (oparg & 31));
  uint32_t old = __atomic_load_n(uaddr2, __ATOMIC_SEQ_CST), arg = (uint32_t)oparg, now = old;
  switch (op) {
  case FUTEX_OP_SET: now = arg; break;
  case FUTEX_OP_ADD: now = old + arg; break;
  case FUTEX_OP_OR: now = old | arg; break;
  case FUTEX_OP_ANDN: now = old & ~arg; break;
  case FUTEX_OP_XOR: now = old ^ arg; break;
  }
  __atomic_store_n(uaddr2, now, __ATOMIC_SEQ_CST);
  /* The operation is done before Linux meets such a waiter. */
  if (meets_requeue_pi(uaddr) || meets_requeue_pi(uaddr2)) return detsim__sys_fail(EINVAL);
  long woken = wake(uaddr, nr_wake, FUTEX_BITSET_MATCH_ANY);
  int o = (int)old;
  bool hit = cmp == FUTEX_OP_CMP_EQ ? o == cmparg : cmp == FUTEX_OP_CMP_NE ? o != cmparg
           : cmp == FUTEX_OP_CMP_LT ? o < cmparg : cmp == FUTEX_OP_CMP_LE ? o <= cmparg
           : cmp == FUTEX_OP_CMP_GT ? o > cmparg : o >= cmparg;
  if (hit) woken += wake(uaddr2, nr_wake2, FUTEX_BITSET_MATCH_ANY);
  record_wake(uaddr, woken);
  return woken;
}

/* ---- priority inheritance: the word holds the owner's tid ----
 *
 * A thread in LOCK_PI raises the owner's priority (machine_prio.c follows
 * detsim__futex_pi_owner, and detsim__sync_pi_owner through PI mutexes);
 * UNLOCK_PI hands the lock to the waiter of the highest priority and the
 * owner's boost ends with it. */

detsim_thread *detsim__futex_pi_owner(const detsim_thread *t) {
  if (t->ready != waiter_woken) return NULL;
  const struct futex_waiter *w = t->ready_arg;
  if (!w->pi || w->woken) return NULL;
  uint32_t owner = __atomic_load_n(w->key, __ATOMIC_SEQ_CST) & FUTEX_TID_MASK;
  return owner != 0 ? detsim__sys_thread_of_tid((pid_t)owner) : NULL;
}

/* Waiting for holder's lock would close a chain of PI waits back to the
 * caller: Linux's chain walk answers EDEADLK. */
static bool closes_chain(detsim_thread *holder) {
  detsim_thread *self = detsim__self();
  detsim_thread *x = holder;
  for (unsigned steps = 0; x != NULL && steps < DETSIM_MAX_THREADS; steps++) {
    if (x == self) return true;
    x = x->state == DETSIM_T_BLOCKED ? detsim__sync_pi_owner(x) : NULL;
  }
  return false;
}

static long futex_lock_pi(uint32_t *uaddr, const struct timeout *to, bool try_only) {
  pid_t self = detsim__sys_self_tid();
  uint64_t deadline = DETSIM_NO_DEADLINE;
  if (!try_only) {
    int bad = deadline_of(to, &deadline);
    if (bad) return detsim__sys_fail(bad);
  }
  for (;;) {
    uint32_t v = __atomic_load_n(uaddr, __ATOMIC_SEQ_CST);
    uint32_t owner = v & FUTEX_TID_MASK;
    if (owner == 0) {
      uint32_t now = (uint32_t)self | (has_pi_waiters(uaddr) ? FUTEX_WAITERS : 0);
      __atomic_store_n(uaddr, now, __ATOMIC_SEQ_CST);
      return 0;
    }
    if (owner == (uint32_t)self) return detsim__sys_fail(EDEADLK);
    if (try_only) return detsim__sys_fail(EAGAIN);
    detsim_thread *holder = detsim__sys_thread_of_tid((pid_t)owner);
    if (holder == NULL) return detsim__sys_fail(ESRCH);
    if (closes_chain(holder)) return detsim__sys_fail(EDEADLK);
    detsim__pi_ever = true;
    __atomic_store_n(uaddr, v | FUTEX_WAITERS, __ATOMIC_SEQ_CST);
    struct futex_waiter *w = waiter_add(uaddr, FUTEX_BITSET_MATCH_ANY, true);
    int r = detsim__block_intr(DETSIM_EV_futex_wait, uaddr, waiter_woken, w, deadline);
    bool handed = w->woken;
    waiter_remove(w);
    if (handed) {
      CHECK_EQ(__atomic_load_n(uaddr, __ATOMIC_SEQ_CST) & FUTEX_TID_MASK, (uint32_t)self);
      return 0;
    }
    if (r == ETIMEDOUT) return detsim__sys_fail(ETIMEDOUT);
    /* Linux restarts LOCK_PI after any handler (ERESTARTNOINTR). */
  }
}

static long futex_unlock_pi(uint32_t *uaddr) {
  uint32_t v = __atomic_load_n(uaddr, __ATOMIC_SEQ_CST);
  if ((v & FUTEX_TID_MASK) != (uint32_t)detsim__sys_self_tid()) return detsim__sys_fail(EPERM);
  struct futex_waiter *cands[DETSIM_FUTEX_WAITERS_MAX];
  unsigned n = candidates(uaddr, FUTEX_BITSET_MATCH_ANY, true, cands);
  if (n == 0) {
    __atomic_store_n(uaddr, 0, __ATOMIC_SEQ_CST);
    record_wake(uaddr, 0);
    return 0;
  }
  /* The lock goes to the waiter drawn, as the kernel hands it to its top
   * waiter: its tid in the word, FUTEX_WAITERS while others still wait. */
  struct futex_waiter *w = choose(cands, n);
  w->woken = true;
  __atomic_store_n(uaddr, (uint32_t)w->tid | (n > 1 ? FUTEX_WAITERS : 0), __ATOMIC_SEQ_CST);
  record_wake(uaddr, 1);
  /* The new owner, if now above the caller, runs at once. */
  if (detsim__rt_ever) detsim__sched_rt_point(detsim__self());
  return 0;
}

/* ---- requeueing onto a PI futex ----
 *
 * FUTEX_WAIT_REQUEUE_PI waits on a plain futex for a FUTEX_CMP_REQUEUE_PI
 * that either takes the PI futex uaddr2 for it at once (the top waiter,
 * when uaddr2 is free) or moves it onto uaddr2, where it waits as a
 * LOCK_PI waiter (it boosts the owner, and UNLOCK_PI hands it the lock).
 * It returns 0 owning uaddr2.  As Linux: a plain wake, requeue or wake-op
 * that meets such a waiter is EINVAL, a timeout ETIMEDOUT, a signal before
 * the requeue restarts the call (comparing the word anew), after it
 * EAGAIN. */

static long futex_wait_requeue_pi(uint32_t *uaddr, uint32_t val, const struct timeout *to, uint32_t *uaddr2) {
  if (!word_ok(uaddr2)) return detsim__sys_fail(uaddr2 == NULL ? EFAULT : EINVAL);
  if (uaddr2 == uaddr) return detsim__sys_fail(EINVAL);
  uint64_t deadline;
  int bad = deadline_of(to, &deadline);
  if (bad) return detsim__sys_fail(bad);
  pid_t self = detsim__sys_self_tid();
  for (;;) {
    if (__atomic_load_n(uaddr, __ATOMIC_SEQ_CST) != val) return detsim__sys_fail(EAGAIN);
    struct futex_waiter *w = waiter_add(uaddr, FUTEX_BITSET_MATCH_ANY, false);
    w->requeue_pi = true;
    w->key2 = uaddr2;
    int r = detsim__block_intr(DETSIM_EV_futex_wait, uaddr, waiter_woken, w, deadline);
    bool owns = w->woken, requeued = w->pi;
    waiter_remove(w);
    if (owns) {
      CHECK_EQ(__atomic_load_n(uaddr2, __ATOMIC_SEQ_CST) & FUTEX_TID_MASK, (uint32_t)self);
      return 0;
    }
    CHECK(r == ETIMEDOUT || r == EINTR);
    if (r == ETIMEDOUT) return detsim__sys_fail(ETIMEDOUT);
    if (requeued) return detsim__sys_fail(EAGAIN);
    /* Linux restarts it after any handler (ERESTARTNOINTR). */
  }
}

static long futex_cmp_requeue_pi(uint32_t *uaddr, int nr_wake, int nr_requeue, uint32_t *uaddr2, uint32_t val3) {
  if (!word_ok(uaddr2)) return detsim__sys_fail(uaddr2 == NULL ? EFAULT : EINVAL);
  if (nr_wake != 1 || nr_requeue < 0 || uaddr2 == uaddr) return detsim__sys_fail(EINVAL);
  if (__atomic_load_n(uaddr, __ATOMIC_SEQ_CST) != val3) return detsim__sys_fail(EAGAIN);
  struct futex_waiter *cands[DETSIM_FUTEX_WAITERS_MAX];
  /* A plain waiter on uaddr, or one that names another PI futex: EINVAL. */
  if (candidates(uaddr, FUTEX_BITSET_MATCH_ANY, false, cands) != 0) return detsim__sys_fail(EINVAL);
  unsigned n = requeue_pi_waiters(uaddr, cands);
  for (unsigned i = 0; i < n; i++)
    if (cands[i]->key2 != uaddr2) return detsim__sys_fail(EINVAL);
  long count = 0;
  if (n > 0) {
    /* The top waiter takes uaddr2 at once if it is free, as the kernel's
     * proxy trylock (which sets FUTEX_WAITERS whatever follows). */
    uint32_t v = __atomic_load_n(uaddr2, __ATOMIC_SEQ_CST);
    uint32_t owner = v & FUTEX_TID_MASK;
    struct futex_waiter *top = choose(cands, n);
    if (owner == (uint32_t)top->tid) return detsim__sys_fail(EDEADLK);
    if (owner != 0 && detsim__sys_thread_of_tid((pid_t)owner) == NULL) return detsim__sys_fail(ESRCH);
    if (owner == 0) {
      __atomic_store_n(uaddr2, (uint32_t)top->tid | FUTEX_WAITERS, __ATOMIC_SEQ_CST);
      top->key = uaddr2;
      top->pi = true;
      top->woken = true;
      count = 1;
    }
  }
  /* Then up to nr_requeue more (nr_requeue + 1 when the lock stayed
   * held), each now a PI waiter on uaddr2. */
  while (count - 1 < nr_requeue) {
    n = requeue_pi_waiters(uaddr, cands);
    if (n == 0) break;
    struct futex_waiter *w = choose(cands, n);
    w->key = uaddr2;
    w->pi = true;
    __atomic_or_fetch(uaddr2, FUTEX_WAITERS, __ATOMIC_SEQ_CST);
    detsim__pi_ever = true;
    count++;
  }
  record_wake(uaddr, count);
  return count;
}

/* ---- for futex2 (futex2.c): its calls checked, on the same table ---- */

long detsim__futex_wait2(uint32_t *uaddr, uint32_t val, uint32_t bitset, const struct timespec *abs, clockid_t clock) {
  if (!word_ok(uaddr)) return detsim__sys_fail(uaddr == NULL ? EFAULT : EINVAL);
  struct timeout to = {.given = abs != NULL, .absolute = true, .clock = clock};
  if (abs != NULL) to.ts = *abs;
  return futex_wait(uaddr, val, &to, bitset, true);
}

long detsim__futex_wake2(uint32_t *uaddr, int nr, uint32_t bitset) {
  if (!word_ok(uaddr)) return detsim__sys_fail(uaddr == NULL ? EFAULT : EINVAL);
  if (bitset == 0) return detsim__sys_fail(EINVAL);
  if (meets_requeue_pi(uaddr)) return detsim__sys_fail(EINVAL);
  long n = nr == 0 ? 0 : wake(uaddr, nr, bitset); /* FLAGS_STRICT: 0 wakes none */
  record_wake(uaddr, n);
  return n;
}

long detsim__futex_cmp_requeue2(uint32_t *uaddr, int nr_wake, int nr_requeue, uint32_t *uaddr2, uint32_t val) {
  if (!word_ok(uaddr)) return detsim__sys_fail(uaddr == NULL ? EFAULT : EINVAL);
  return futex_requeue(uaddr, nr_wake, nr_requeue, uaddr2, true, val);
}

long detsim__futex_waitv(const uint32_t **keys, const uint32_t *vals, unsigned n, const struct timespec *abs,
                         clockid_t clock) {
  CHECK(n >= 1);
  for (unsigned i = 0; i < n; i++)
    if (!word_ok(keys[i])) return detsim__sys_fail(keys[i] == NULL ? EFAULT : EINVAL);
  struct timeout to = {.given = abs != NULL, .absolute = true, .clock = clock};
  if (abs != NULL) to.ts = *abs;
  uint64_t deadline;
  int bad = deadline_of(&to, &deadline);
  if (bad) return detsim__sys_fail(bad);
  for (;;) {
    for (unsigned i = 0; i < n; i++)
      if (__atomic_load_n(keys[i], __ATOMIC_SEQ_CST) != vals[i]) return detsim__sys_fail(EAGAIN);
    struct futex_waiter *w = waiter_add(NULL, FUTEX_BITSET_MATCH_ANY, false);
    w->vkeys = keys;
    w->nv = n;
    w->woken_index = -1;
    int r = detsim__block_intr(DETSIM_EV_futex_wait, keys[0], waiter_woken, w, deadline);
    bool woken = w->woken;
    int index = w->woken_index;
    waiter_remove(w);
    if (woken) {
      CHECK_GE(index, 0); /* a wake names the futex it came through */
      return index;
    }
    CHECK(r == ETIMEDOUT || r == EINTR);
    if (r == ETIMEDOUT) return detsim__sys_fail(ETIMEDOUT);
    /* ERESTARTSYS: restarted after SA_RESTART handlers. */
    if (!detsim__restartable()) return detsim__sys_fail(EINTR);
  }
}

/* ---- the call ---- */

long detsim__sys_futex(const long a[6]) {
  uint32_t *uaddr = (uint32_t *)a[0];
  int op = (int)a[1];
  uint32_t val = (uint32_t)a[2];
  const struct timespec *uts = (const struct timespec *)a[3];
  uint32_t *uaddr2 = (uint32_t *)a[4];
  uint32_t val3 = (uint32_t)a[5];
  int cmd = op & FUTEX_CMD_MASK;
  bool realtime = (op & FUTEX_CLOCK_REALTIME) != 0;
  detsim__yield_aux(DETSIM_EV_futex_call, uaddr, detsim__sys_caller, (uint32_t)op);
  if (realtime && cmd != FUTEX_WAIT_BITSET && cmd != FUTEX_WAIT_REQUEUE_PI && cmd != FUTEX_LOCK_PI2)
    return detsim__sys_fail(ENOSYS);
  if (!word_ok(uaddr)) return detsim__sys_fail(uaddr == NULL ? EFAULT : EINVAL);
  /* Only the waits read a timespec at a[3]; elsewhere it is a count. */
  bool timed = cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2 ||
               cmd == FUTEX_WAIT_REQUEUE_PI;
  struct timeout to = {.given = timed && uts != NULL};
  if (to.given) memcpy(&to.ts, uts, sizeof to.ts);
  switch (cmd) {
  case FUTEX_WAIT:
    return futex_wait(uaddr, val, &to, FUTEX_BITSET_MATCH_ANY, false);
  case FUTEX_WAIT_BITSET:
    to.absolute = true;
    to.clock = realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    return futex_wait(uaddr, val, &to, val3, false);
  case FUTEX_WAKE:
  case FUTEX_WAKE_BITSET: {
    uint32_t bitset = cmd == FUTEX_WAKE ? FUTEX_BITSET_MATCH_ANY : val3;
    if (bitset == 0) return detsim__sys_fail(EINVAL);
    if (meets_requeue_pi(uaddr)) return detsim__sys_fail(EINVAL);
    long n = wake(uaddr, (int)val, bitset);
    record_wake(uaddr, n);
    return n;
  }
  case FUTEX_REQUEUE:
  case FUTEX_CMP_REQUEUE:
    return futex_requeue(uaddr, (int)val, (int)(long)uts, uaddr2, cmd == FUTEX_CMP_REQUEUE, val3);
  case FUTEX_WAKE_OP:
    return futex_wake_op(uaddr, (int)val, (int)(long)uts, uaddr2, val3);
  case FUTEX_LOCK_PI:
  case FUTEX_LOCK_PI2:
    to.absolute = true;
    to.clock = cmd == FUTEX_LOCK_PI || realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    return futex_lock_pi(uaddr, &to, false);
  case FUTEX_TRYLOCK_PI:
    return futex_lock_pi(uaddr, &to, true);
  case FUTEX_UNLOCK_PI:
    return futex_unlock_pi(uaddr);
  case FUTEX_WAIT_REQUEUE_PI:
    to.absolute = true;
    to.clock = realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    return futex_wait_requeue_pi(uaddr, val, &to, uaddr2);
  case FUTEX_CMP_REQUEUE_PI:
    return futex_cmp_requeue_pi(uaddr, (int)val, (int)(long)uts, uaddr2, val3);
  default:
    return detsim__sys_fail(ENOSYS); /* as Linux: FUTEX_FD is gone, others never were */
  }
}
