/* A recursive mutex's depth is bounded: locking past
 * DETSIM_MUTEX_RECURSION_MAX (runtime/sync/sync.h: 2^20) gives EAGAIN,
 * and the mutex is still held exactly that many times. */
#include "sync_test.h"

#define RECURSION_MAX (1u << 20) /* DETSIM_MUTEX_RECURSION_MAX */

static pthread_mutex_t m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

int main(void) {
  unsigned locked = 0;
  int rc;
  while ((rc = pthread_mutex_trylock(&m)) == 0 && locked <= RECURSION_MAX) locked++;
  EXPECT_EQ(rc, EAGAIN);
  EXPECT_EQ(locked, RECURSION_MAX);
  EXPECT_EQ(pthread_mutex_lock(&m), EAGAIN);
  for (unsigned i = 0; i < locked; i++) REQUIRE_EQ(pthread_mutex_unlock(&m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m), EPERM);
  return test_finish("mutex_recursion_limit");
}
