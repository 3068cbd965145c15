/* Callers outside the simulation: outside_lib.c's constructor ran before
 * the runtime started and used every primitive; its results must be
 * POSIX's, with an outside owner id (bit 31 set, runtime/sync/sync.h) in
 * the mutex.  Then the simulated main thread uses the same mutex. */
#include "sync_test.h"

#include <stdint.h>

struct outside_results {
  int lock, relock_errorcheck, trylock_busy, unlock, unlock_again;
  int recursive_lock2, recursive_unlock2;
  uint32_t owner_word;
  int once_runs, once_rc;
  int sem_post, sem_trywait, sem_trywait_empty, sem_errno;
  int cond_wait, cond_signal;
  int rw_rd, rw_tryw, rw_unlock, rw_w, rw_unlock2;
  int spin_lock, spin_try, spin_unlock;
  int barrier_init, barrier_wait, barrier_destroy;
  int done;
};
extern struct outside_results outside_results;
extern pthread_mutex_t outside_mutex;

int main(void) {
  struct outside_results *r = &outside_results;
  REQUIRE_EQ(r->done, 1);
  EXPECT_EQ(r->lock, 0);
  EXPECT(r->owner_word & 0x80000000u); /* DETSIM_SYNC_OUTSIDE_ID_BIT */
  EXPECT_EQ(r->relock_errorcheck, EDEADLK);
  EXPECT_EQ(r->trylock_busy, EBUSY);
  EXPECT_EQ(r->unlock, 0);
  EXPECT_EQ(r->unlock_again, EPERM);
  EXPECT_EQ(r->recursive_lock2, 0);
  EXPECT_EQ(r->recursive_unlock2, 0);
  EXPECT_EQ(r->once_rc, 0);
  EXPECT_EQ(r->once_runs, 1);
  EXPECT_EQ(r->sem_post, 0);
  EXPECT_EQ(r->sem_trywait, 0);
  EXPECT_EQ(r->sem_trywait_empty, -1);
  EXPECT_EQ(r->sem_errno, EAGAIN);
  EXPECT_EQ(r->cond_wait, 0);
  EXPECT_EQ(r->cond_signal, 0);
  EXPECT_EQ(r->rw_rd, 0);
  EXPECT_EQ(r->rw_tryw, EBUSY);
  EXPECT_EQ(r->rw_unlock, 0);
  EXPECT_EQ(r->rw_w, 0);
  EXPECT_EQ(r->rw_unlock2, 0);
  EXPECT_EQ(r->spin_lock, 0);
  EXPECT_EQ(r->spin_try, EBUSY);
  EXPECT_EQ(r->spin_unlock, 0);
  EXPECT_EQ(r->barrier_init, 0);
  EXPECT_EQ(r->barrier_wait, PTHREAD_BARRIER_SERIAL_THREAD);
  EXPECT_EQ(r->barrier_destroy, 0);

  /* The simulation takes over the same mutex. */
  EXPECT_EQ(pthread_mutex_lock(&outside_mutex), 0);
  uint32_t owner;
  memcpy(&owner, &outside_mutex, sizeof owner);
  EXPECT_EQ(owner & 0x80000000u, 0); /* a simulated thread's id now */
  EXPECT_EQ(pthread_mutex_lock(&outside_mutex), EDEADLK);
  EXPECT_EQ(pthread_mutex_unlock(&outside_mutex), 0);
  return test_finish("outside");
}
