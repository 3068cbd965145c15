/* A planted bug: the signal comes before the waiter waits and the waiter
 * has no predicate, so the wake-up is lost (as POSIX says) and the waiter
 * waits forever.  In every schedule the run must end as a deadlock. */
#include "sync_test.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

static void *signaller(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  pthread_cond_signal(&c); /* nobody waits yet: lost */
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  join(spawn(signaller, NULL));
  pthread_mutex_lock(&m);
  pthread_cond_wait(&c, &m); /* the bug: no predicate, the signal is gone */
  pthread_mutex_unlock(&m);
  printf("woke without a signal\n");
  return 1;
}
