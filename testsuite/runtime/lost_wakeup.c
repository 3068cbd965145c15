/* A lost wakeup: the waiter waits without a predicate loop, and the signal
 * may come before the wait, when nobody is waiting.  Then the waiter sleeps
 * forever and main blocks in join: a deadlock. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;

static void *waiter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  pthread_cond_wait(&c, &m); /* bug: no predicate */
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  pthread_mutex_lock(&m);
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  pthread_join(t, NULL);
  puts("woken");
  return 0;
}
