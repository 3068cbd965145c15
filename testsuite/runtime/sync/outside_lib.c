/* A shared library built with plain clang whose constructor runs before the
 * detsim runtime has started: its calls reach the runtime's exported
 * interceptors from a thread outside the simulation (detsim__self() is
 * NULL), which must work on the object words with atomics alone, never
 * blocking in the simulation.  It records what it saw for the program to
 * check (outside_main.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

struct outside_results {
  int lock, relock_errorcheck, trylock_busy, unlock, unlock_again;
  int recursive_lock2, recursive_unlock2;
  uint32_t owner_word; /* the owner id the runtime wrote */
  int once_runs, once_rc;
  int sem_post, sem_trywait, sem_trywait_empty, sem_errno;
  int cond_wait, cond_signal;
  int rw_rd, rw_tryw, rw_unlock, rw_w, rw_unlock2;
  int spin_lock, spin_try, spin_unlock;
  int barrier_init, barrier_wait, barrier_destroy;
  int done;
};

struct outside_results outside_results;
pthread_mutex_t outside_mutex = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

static void once_routine(void) { outside_results.once_runs++; }

__attribute__((constructor)) static void outside_ctor(void) {
  struct outside_results *r = &outside_results;
  r->lock = pthread_mutex_lock(&outside_mutex);
  memcpy(&r->owner_word, &outside_mutex, sizeof r->owner_word);
  r->relock_errorcheck = pthread_mutex_lock(&outside_mutex);
  r->trylock_busy = pthread_mutex_trylock(&outside_mutex);
  r->unlock = pthread_mutex_unlock(&outside_mutex);
  r->unlock_again = pthread_mutex_unlock(&outside_mutex);

  pthread_mutex_t rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
  r->recursive_lock2 = pthread_mutex_lock(&rec) | pthread_mutex_lock(&rec);
  r->recursive_unlock2 = pthread_mutex_unlock(&rec) | pthread_mutex_unlock(&rec);

  static pthread_once_t once = PTHREAD_ONCE_INIT;
  r->once_rc = pthread_once(&once, once_routine) | pthread_once(&once, once_routine);

  sem_t s;
  sem_init(&s, 0, 0);
  r->sem_post = sem_post(&s);
  r->sem_trywait = sem_trywait(&s);
  errno = 0;
  r->sem_trywait_empty = sem_trywait(&s);
  r->sem_errno = errno;
  sem_destroy(&s);

  /* Outside the simulation a wait is a spurious wake-up: it returns 0 with
   * the mutex held again. */
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  pthread_mutex_lock(&m);
  r->cond_wait = pthread_cond_wait(&c, &m);
  r->cond_signal = pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);

  pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
  r->rw_rd = pthread_rwlock_rdlock(&rw);
  r->rw_tryw = pthread_rwlock_trywrlock(&rw);
  r->rw_unlock = pthread_rwlock_unlock(&rw);
  r->rw_w = pthread_rwlock_wrlock(&rw);
  r->rw_unlock2 = pthread_rwlock_unlock(&rw);

  pthread_spinlock_t sp;
  pthread_spin_init(&sp, 0);
  r->spin_lock = pthread_spin_lock(&sp);
  r->spin_try = pthread_spin_trylock(&sp);
  r->spin_unlock = pthread_spin_unlock(&sp);

  pthread_barrier_t b;
  r->barrier_init = pthread_barrier_init(&b, NULL, 1);
  r->barrier_wait = pthread_barrier_wait(&b);
  r->barrier_destroy = pthread_barrier_destroy(&b);
  r->done = 1;
}
