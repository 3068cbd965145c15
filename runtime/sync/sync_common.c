/* What the synchronization primitives share: caller ids, the outside
 * caller's wait, deadlines, and the compile-time ties between the layouts in
 * sync.h and glibc's types.
 */
#include <errno.h>
#include <sched.h>
#include <semaphore.h>
#include <stddef.h>
#include <threads.h>
#include <unistd.h>

#include "core/core.h"
#include "time/time.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "sync/sync.h"

/* The layouts fit the objects, and the fields glibc's static initializers set
 * are where sync.h says. */
_Static_assert(sizeof(pthread_mutex_t) >= DETSIM_MUTEX_KIND + 4, "mutex layout fits");
_Static_assert(offsetof(pthread_mutex_t, __data.__kind) == DETSIM_MUTEX_KIND,
               "a mutex's kind is where glibc's static initializers put it");
_Static_assert(sizeof(pthread_rwlock_t) >= DETSIM_RWLOCK_FLAGS + 4, "rwlock layout fits");
_Static_assert(offsetof(pthread_rwlock_t, __data.__flags) == DETSIM_RWLOCK_FLAGS,
               "a rwlock's flags are where glibc's static initializers put them");
_Static_assert(offsetof(pthread_rwlock_t, __data.__cur_writer) == DETSIM_RWLOCK_WRITER,
               "the writer id is glibc's __cur_writer");
_Static_assert(sizeof(pthread_cond_t) >= DETSIM_COND_PENDING + 4, "cond layout fits");
_Static_assert(sizeof(pthread_spinlock_t) == 4, "a spinlock is one word");
_Static_assert(sizeof(pthread_barrier_t) >= DETSIM_BARRIER_INSIDE + 4, "barrier layout fits");
_Static_assert(sizeof(pthread_once_t) == 4, "a once control is one word");
_Static_assert(sizeof(sem_t) >= DETSIM_SEM_VALUE + 4, "semaphore layout fits");
_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t), "mtx_t is a pthread_mutex_t");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t), "cnd_t is a pthread_cond_t");
_Static_assert(sizeof(once_flag) == sizeof(pthread_once_t), "once_flag is a pthread_once_t");
_Static_assert(_Alignof(pthread_mutex_t) >= 4 && _Alignof(pthread_cond_t) >= 4 &&
               _Alignof(pthread_rwlock_t) >= 4 && _Alignof(pthread_barrier_t) >= 4 &&
               _Alignof(sem_t) >= 4, "the words are aligned for atomics");
/* PTHREAD_COND_INITIALIZER and PTHREAD_ONCE_INIT are all zero: our zero
 * states (CLOCK_REALTIME, not run). */
_Static_assert(CLOCK_REALTIME == 0, "a zeroed cond uses CLOCK_REALTIME");
_Static_assert(PTHREAD_ONCE_INIT == DETSIM_ONCE_NOT_RUN, "PTHREAD_ONCE_INIT is not run");

uint32_t detsim__sync_outside_id(void) {
  uint32_t tid = (uint32_t)REAL(gettid)();
  CHECK_LT(tid, DETSIM_SYNC_OUTSIDE_ID_BIT);
  return DETSIM_SYNC_OUTSIDE_ID_BIT | tid;
}

int detsim__sync_outside_wait(bool (*ready)(void *arg), void *arg, uint64_t deadline_ns) {
  CHECK(detsim__self() == NULL);
  while (!ready(arg)) {
    /* A plain read of the virtual clock: the baton holder moves it, and an
     * outside thread only needs to see it pass the deadline eventually. */
    if (deadline_ns != DETSIM_NO_DEADLINE && detsim__running() && detsim__now_ns() >= deadline_ns)
      return ETIMEDOUT;
    REAL(sched_yield)();
  }
  return 0;
}

int detsim__sync_deadline(clockid_t clock, const struct timespec *abstime, uint64_t *deadline_ns) {
  *deadline_ns = DETSIM_NO_DEADLINE;
  if (abstime == NULL) return 0;
  if (!detsim__running()) return detsim__timespec_valid(abstime) ? 0 : EINVAL;
  int rc = detsim__deadline_from_abstime(clock, abstime, deadline_ns);
  if (rc != 0) return rc;
  CHECK_NE(*deadline_ns, DETSIM_NO_DEADLINE);
  return 0;
}
