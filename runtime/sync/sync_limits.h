/* The limits of the synchronization primitives (sync_*.c).
 *
 * Kept apart from limits.h (the lead's) only so that the sync files have one
 * owner; each limit is named with its unit and says why it has its value.
 */
#ifndef DETSIM_SYNC_LIMITS_H
#define DETSIM_SYNC_LIMITS_H

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

#endif
