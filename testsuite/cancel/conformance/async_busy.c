/* Asynchronous cancellation of a busy loop: the thread never calls a
 * cancellation point, only increments an atomic counter (natively the
 * cancel interrupts it anywhere; in the simulation at its next yield
 * point, each atomic access).  Its cleanup handler runs and join returns
 * PTHREAD_CANCELED.  Then a thread switches to asynchronous with a request
 * already pending and acts at once. */
#include <stdatomic.h>

#include "cancel_conf.h"

static atomic_long counter;
static atomic_int cleaned;

static void cleanup(void *arg) {
  (void)arg;
  atomic_store(&cleaned, 1);
}

static void *busy(void *arg) {
  (void)arg;
  int old;
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
  pthread_cleanup_push(cleanup, NULL);
  for (;;) atomic_fetch_add(&counter, 1);
  pthread_cleanup_pop(0);
  return NULL;
}

static atomic_int go;

static void *late_async(void *arg) {
  (void)arg;
  pthread_cleanup_push(cleanup, NULL);
  while (!atomic_load(&go)) {} /* no cancellation point: the request waits */
  printf("  request pending, switching to asynchronous\n");
  int old;
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
  printf("  not reached\n");
  pthread_cleanup_pop(0);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, busy, NULL);
  while (atomic_load(&counter) < 1000) usleep(1000);
  printf("cancel=%d\n", pthread_cancel(t));
  join_report("busy", t);
  printf("busy cleaned=%d\n", atomic_load(&cleaned));

  atomic_store(&cleaned, 0);
  pthread_create(&t, NULL, late_async, NULL);
  printf("cancel=%d\n", pthread_cancel(t));
  atomic_store(&go, 1);
  join_report("late_async", t);
  printf("late_async cleaned=%d\n", atomic_load(&cleaned));
  return 0;
}
