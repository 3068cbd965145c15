/* sync/: the one header of the runtime's sync part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_SYNC_PART_H
#define DETSIM_SYNC_PART_H

/* The limits of the synchronization primitives (sync_*.c).
 *
 * Kept apart from limits.h (the lead's) only so that the sync files have one
 * owner; each limit is named with its unit and says why it has its value.
 */

#include <limits.h>
#include <semaphore.h>

/* Times one thread may hold a recursive mutex at once; one more lock gives
 * EAGAIN (glibc's bound is UINT_MAX).  A million is deeper than any real
 * recursion (the stack runs out first), and small enough that a test can
 * reach the EAGAIN path in well under a second. */
#define DETSIM_MUTEX_RECURSION_MAX (1u << 20)

/* Read locks held on one rwlock at once: the 31 bits of the state word that
 * are not the write bit.  One more gives EAGAIN, as POSIX says. */
#define DETSIM_RWLOCK_READERS_MAX 0x7fffffffu

/* Threads a barrier can count: as glibc, at most INT_MAX (init gives EINVAL
 * above it), so the arrival counter never wraps. */
#define DETSIM_BARRIER_COUNT_MAX ((unsigned)INT_MAX)

/* A semaphore's value: POSIX's SEM_VALUE_MAX (sem_post gives EOVERFLOW). */
#define DETSIM_SEM_VALUE_MAX ((unsigned)SEM_VALUE_MAX)

/* Owner ids of threads outside the simulation: this bit set, the kernel tid
 * in the low bits.  Simulated thread ids stay below 65535 (limits.h), and
 * Linux tids below 2^22 (PID_MAX_LIMIT), so the two ranges never meet. */
#define DETSIM_SYNC_OUTSIDE_ID_BIT 0x80000000u

_Static_assert(DETSIM_MUTEX_RECURSION_MAX < UINT_MAX, "the recursion count is a 32-bit word");
_Static_assert(DETSIM_RWLOCK_READERS_MAX < DETSIM_SYNC_OUTSIDE_ID_BIT, "readers fit below the write bit");
_Static_assert(DETSIM_SEM_VALUE_MAX <= 0xffffffffu, "a semaphore's value is a 32-bit word");

/* The synchronization primitives: object layouts and what the sync_*.c files
 * share.
 *
 * Every object keeps its whole state in the user's own storage (the bytes of
 * the pthread_mutex_t, sem_t…), in the layout documented below, so there is
 * no side table and no limit on the number of objects, and an object of all
 * zero bytes is a valid unlocked one.  Where glibc's static initializers put
 * something non-zero (a mutex's kind, a rwlock's flags), the layout keeps
 * glibc's field at glibc's offset, so PTHREAD_*_INITIALIZER* need no init
 * call.  The _Static_asserts in sync_common.c tie the offsets to glibc's.
 *
 * Rules:
 *  - The words are read and written only with __atomic builtins (never with
 *    an intercepted function), so a thread outside the simulation
 *    (detsim__self() == NULL: the watchdog, a thread running TLS destructors
 *    after it finished, a constructor before the runtime started) can use
 *    the objects too.  Such a caller never yields or blocks in the
 *    simulation: it CASes, and spins with REAL(sched_yield) when it must
 *    wait (detsim__sync_outside_wait).
 *  - A simulated thread's operation is a yield point before it acts; when it
 *    must wait it calls detsim__block() with a predicate over the words, and
 *    retries when that returns.  Only one simulated thread runs at a time, so
 *    between two yield points a simulated thread's reads and writes are not
 *    interleaved with other simulated threads' (only with outside ones').
 *  - Errors are POSIX's, as glibc gives them (the differences are listed at
 *    each file's top).
 *
 * Layouts (x86_64 glibc 2.36; offsets in bytes, every word 32-bit):
 *
 *  pthread_mutex_t / mtx_t (40 bytes)
 *    0  owner   0 = unlocked, else the owner's id (detsim__sync_caller_id)
 *    4  depth   times the owner holds it: 1.. (recursive: up to
 *               DETSIM_MUTEX_RECURSION_MAX); 0 when unlocked
 *    8  ceiling PTHREAD_PRIO_PROTECT's priority ceiling, 1..99 (glibc keeps
 *               it in the high bits of __lock, which is our owner word)
 *    12 robust  a robust mutex's state (DETSIM_ROBUST_*: consistent, its
 *               owner died, inconsistent, not recoverable)
 *    16 kind    glibc's __kind: PTHREAD_MUTEX_{TIMED,RECURSIVE,ERRORCHECK,
 *               ADAPTIVE}_NP in the low 2 bits, glibc's flags above
 *               (DETSIM_MUTEX_KIND_ROBUST, _PI, _PP, _PSHARED); -1 after
 *               destroy (as glibc: a destroyed mutex gives EINVAL)
 *    24 prev, 32 next (pointers) a held robust mutex's place in its
 *               owner's list (glibc's __list), walked when the owner dies
 *    A process-shared mutex's owner id is the owner's virtual tid (unique
 *    in the world), so the processes of a run can share it.
 *
 *  pthread_rwlock_t (56 bytes)
 *    0  state   bit 31 = write-locked; bits 0-30 = read locks held
 *    4  wwait   simulated writers blocked in wrlock (writer preference)
 *    24 writer  the write owner's id, 0 when none (glibc's __cur_writer)
 *    48 flags   glibc's __flags: PTHREAD_RWLOCK_PREFER_*_NP
 *
 *  pthread_cond_t / cnd_t (48 bytes)
 *    0  clock   the clock of timedwait (0 = CLOCK_REALTIME, the default)
 *    4  waiters threads in detsim__wait on it not yet woken: the waiter adds
 *               itself; a signal subtracts the ones it woke, a timed-out
 *               waiter itself
 *    8  pending 1 when a thread outside the simulation signalled while there
 *               were waiters (it may not touch the scheduler): the next
 *               simulated operation on the cond turns it into a broadcast
 *
 *  pthread_spinlock_t (4 bytes)
 *    0  owner   0 = unlocked, else the owner's id
 *
 *  pthread_barrier_t (32 bytes; there is no static initializer)
 *    0  count   threads per round; 0 = not initialized or destroyed
 *    4  arrived threads arrived in the current round
 *    8  round   rounds completed (waiters wait for it to change)
 *    12 inside  threads between arriving and returning (destroy waits for 0)
 *
 *  pthread_once_t / once_flag (4 bytes)
 *    0  state   0 = not run, 1 = running, 2 = done
 *
 *  sem_t (32 bytes)
 *    0  value   0..SEM_VALUE_MAX
 *    8  shared  1 for a process-shared one (sem_init's pshared, or named):
 *               a post posts the world, whose other processes may wait
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "core/core.h"
#include "intercept/intercept.h"
#include "sanitize/sanitize.h"
#include "sched/sched.h"

/* A 32-bit word inside a user's object, read through a type that may alias
 * whatever glibc declared there. */
typedef uint32_t __attribute__((may_alias)) detsim_sync_word;

static inline detsim_sync_word *detsim__sync_word(const volatile void *obj, unsigned offset) {
  return (detsim_sync_word *)((char *)(uintptr_t)obj + offset);
}

#define SYNC_LOAD(w) __atomic_load_n((w), __ATOMIC_ACQUIRE)
/* A store publishes (a release for TSan, sanitize.h); a successful CAS
 * takes and publishes (an acquire and a release).  Loads tell TSan nothing:
 * the scheduler evaluates other threads' wait conditions with them. */
#define SYNC_STORE(w, v) (detsim__hb_release(w), __atomic_store_n((w), (v), __ATOMIC_RELEASE))
#define SYNC_CAS(w, expected_p, desired) \
  (__extension__({ \
    bool detsim__cas_ok = __atomic_compare_exchange_n((w), (expected_p), (desired), false, __ATOMIC_ACQ_REL, \
                                                      __ATOMIC_ACQUIRE); \
    if (detsim__cas_ok) { \
      detsim__hb_acquire(w); \
      detsim__hb_release(w); \
    } \
    detsim__cas_ok; \
  }))

/* Word offsets (see the layouts above). */
enum {
  DETSIM_MUTEX_OWNER = 0,
  DETSIM_MUTEX_DEPTH = 4,
  DETSIM_MUTEX_CEILING = 8,
  DETSIM_MUTEX_ROBUST = 12,
  DETSIM_MUTEX_KIND = 16,
  DETSIM_MUTEX_LIST_PREV = 24,
  DETSIM_MUTEX_LIST_NEXT = 32,
  DETSIM_RWLOCK_STATE = 0,
  DETSIM_RWLOCK_WWAIT = 4,
  DETSIM_RWLOCK_WRITER = 24,
  DETSIM_RWLOCK_FLAGS = 48,
  DETSIM_COND_CLOCK = 0,
  DETSIM_COND_WAITERS = 4,
  DETSIM_COND_PENDING = 8,
  DETSIM_SPIN_OWNER = 0,
  DETSIM_BARRIER_COUNT = 0,
  DETSIM_BARRIER_ARRIVED = 4,
  DETSIM_BARRIER_ROUND = 8,
  DETSIM_BARRIER_INSIDE = 12,
  DETSIM_ONCE_STATE = 0,
  DETSIM_SEM_VALUE = 0,
  DETSIM_SEM_SHARED = 8,
};

enum { DETSIM_ONCE_NOT_RUN = 0, DETSIM_ONCE_RUNNING = 1, DETSIM_ONCE_DONE = 2 };

/* A mutex's kind word: the type's bits (glibc's internal
 * PTHREAD_MUTEX_KIND_MASK_NP) and glibc's protocol flags
 * (PTHREAD_MUTEX_PRIO_INHERIT_NP, PTHREAD_MUTEX_PRIO_PROTECT_NP). */
#define DETSIM_MUTEX_TYPE_MASK 3u
#define DETSIM_MUTEX_KIND_ROBUST 16u
#define DETSIM_MUTEX_KIND_PI 32u
#define DETSIM_MUTEX_KIND_PP 64u
#define DETSIM_MUTEX_KIND_PSHARED 128u
#define DETSIM_MUTEX_KIND_PROTOCOLS (DETSIM_MUTEX_KIND_PI | DETSIM_MUTEX_KIND_PP)
/* Kinds that leave the plain path of sync_mutex.c for sync_mutex_robust.c. */
#define DETSIM_MUTEX_KIND_SLOW (DETSIM_MUTEX_KIND_PROTOCOLS | DETSIM_MUTEX_KIND_ROBUST | DETSIM_MUTEX_KIND_PSHARED)

/* A robust mutex's state word (glibc keeps it as __owner's
 * PTHREAD_MUTEX_INCONSISTENT / _NOTRECOVERABLE and the lock word's
 * FUTEX_OWNER_DIED). */
enum {
  DETSIM_ROBUST_CONSISTENT = 0,
  DETSIM_ROBUST_OWNER_DIED = 1,     /* free; the next locker gets EOWNERDEAD */
  DETSIM_ROBUST_INCONSISTENT = 2,   /* held after EOWNERDEAD, not yet consistent */
  DETSIM_ROBUST_NOT_RECOVERABLE = 3 /* every lock gives ENOTRECOVERABLE */
};

/* The id a caller puts in an owner word: its simulated thread id, or for a
 * thread outside the simulation DETSIM_SYNC_OUTSIDE_ID_BIT | its kernel tid
 * (inline: every lock and unlock asks). */
uint32_t detsim__sync_outside_id(void);
static inline uint32_t detsim__sync_caller_id(const detsim_thread *self) {
  if (__builtin_expect(self == NULL, 0)) return detsim__sync_outside_id();
  uint32_t id = detsim__thread_id(self);
  CHECK_NE(id, 0);
  CHECK_LT(id, DETSIM_SYNC_OUTSIDE_ID_BIT);
  return id;
}

/* Waits, for a caller outside the simulation, until ready(arg) holds, by
 * spinning with REAL(sched_yield); ETIMEDOUT once virtual time reaches
 * deadline_ns.  Never touches the scheduler. */
int detsim__sync_outside_wait(bool (*ready)(void *arg), void *arg, uint64_t deadline_ns);

/* The virtual deadline of `abstime` on `clock`: DETSIM_NO_DEADLINE for a NULL
 * abstime; EINVAL for a bad timespec or clock.  Before the runtime started
 * the clock does not run: a valid abstime then gives no deadline. */
int detsim__sync_deadline(clockid_t clock, const struct timespec *abstime, uint64_t *deadline_ns);

/* Mutexes, shared by the pthread and C11 interceptors and by cond wait. */
enum detsim_lock_mode { DETSIM_LOCK_BLOCK, DETSIM_LOCK_TRY, DETSIM_LOCK_TIMED };
int detsim__mutex_init_type(pthread_mutex_t *m, int type);
/* pthread_mutex_init: the type, protocol and ceiling of attr (NULL: a
 * default mutex); EINVAL, or ENOTSUP for a robust PRIO_PROTECT one. */
int detsim__mutex_init_attr(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
/* The predicate of a wait for the mutex to be unlocked. */
bool detsim__mutex_free(void *m);
int detsim__mutex_lock(pthread_mutex_t *m, enum detsim_lock_mode mode, clockid_t clock,
                       const struct timespec *abstime);
int detsim__mutex_unlock(pthread_mutex_t *m);
int detsim__mutex_destroy(pthread_mutex_t *m);
/* Without a yield point: cond wait's release and reacquisition. */
int detsim__mutex_release(pthread_mutex_t *m, uint32_t id);
int detsim__mutex_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id,
                          bool try_only, uint64_t deadline_ns);
/* The robust, process-shared and protocol mutexes (sync_mutex_robust.c),
 * for acquire and release above, which hand them over with the kind word
 * they read; and the plain path they share (sync_mutex.c). */
int detsim__mutex_slow_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id, uint32_t kind, int type,
                               bool try_only, uint64_t deadline_ns);
int detsim__mutex_slow_release(pthread_mutex_t *m, detsim_thread *self, uint32_t id, uint32_t kind, int type);
int detsim__mutex_plain_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id, int type, bool try_only,
                                uint64_t deadline_ns);
int detsim__mutex_plain_release(pthread_mutex_t *m, uint32_t id, int type);
/* The robust mutexes a thread holds, when it ends (its slot's thread exit,
 * and for a process that ends every thread of it): each is given up with
 * its owner dead, so the next locker gets EOWNERDEAD, and its waiters
 * wake. */
void detsim__mutex_robust_owner_died(detsim_thread *t);
void detsim__mutex_robust_process_died(void);
/* The protocol mutexes (sync_mutex_prio.c), for the slow path above:
 * `type` is the mutex's PTHREAD_MUTEX_* type, `self` NULL outside the
 * simulation (no priorities change then). */
int detsim__mutex_pi_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id, int type, bool try_only,
                             uint64_t deadline_ns);
int detsim__mutex_pi_release(pthread_mutex_t *m, detsim_thread *self, uint32_t id, int type);
int detsim__mutex_pp_acquire(pthread_mutex_t *m, detsim_thread *self, uint32_t id, int type, bool try_only,
                             uint64_t deadline_ns);
int detsim__mutex_pp_release(pthread_mutex_t *m, detsim_thread *self, uint32_t id, int type);
/* The thread whose priority a blocked thread's wait raises: the owner of
 * the PTHREAD_PRIO_INHERIT mutex or the PI futex it waits for; NULL for
 * any other wait or an owner outside the simulation (machine_prio.c). */
detsim_thread *detsim__sync_pi_owner(const detsim_thread *waiter);
/* The same for a wait in FUTEX_LOCK_PI (futex.c). */
detsim_thread *detsim__futex_pi_owner(const detsim_thread *waiter);

/* futex2 (futex2.c) on the simulated futex table (futex.c), its
 * arguments checked: futex_wait (an absolute timeout on `clock`, NULL for
 * none), futex_wake, futex_requeue (as FUTEX_CMP_REQUEUE) and futex_waitv
 * (keys[] stays the caller's while it waits: a requeue moves an entry).
 * The raw results: the value, or -1 and errno. */
long detsim__futex_wait2(uint32_t *uaddr, uint32_t val, uint32_t bitset, const struct timespec *abs, clockid_t clock);
long detsim__futex_wake2(uint32_t *uaddr, int nr, uint32_t bitset);
long detsim__futex_cmp_requeue2(uint32_t *uaddr, int nr_wake, int nr_requeue, uint32_t *uaddr2, uint32_t val);
long detsim__futex_waitv(const uint32_t **keys, const uint32_t *vals, unsigned n, const struct timespec *abs,
                         clockid_t clock);

/* Condition variables.  `clock` < 0 means the cond's own clock. */
int detsim__cond_init_clock(pthread_cond_t *c, clockid_t clock);
int detsim__cond_wait(pthread_cond_t *c, pthread_mutex_t *m, bool timed, clockid_t clock,
                      const struct timespec *abstime);
int detsim__cond_wake(pthread_cond_t *c, bool all);
int detsim__cond_destroy(pthread_cond_t *c);

/* Once. */
int detsim__once(pthread_once_t *once, void (*routine)(void));

#endif /* DETSIM_SYNC_PART_H */
