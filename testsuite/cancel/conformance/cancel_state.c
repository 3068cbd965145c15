/* Cancel state and type: a request made while cancellation is disabled
 * waits (a sleep, a cancellation point, completes); enabling does not act
 * by itself when deferred; pthread_testcancel then acts.  A request waits in
 * a thread that makes no cancellation point, until it makes one.  Canceling
 * a finished thread that was not joined yet is 0.  Bad arguments are
 * EINVAL.  A thread cancels itself, deferred: it acts at its next
 * cancellation point. */
#include <stdatomic.h>

#include "cancel_conf.h"

static atomic_int go;

static void say(void *arg) { printf("  cleanup %s\n", (const char *)arg); }

static void *disabled_worker(void *arg) {
  (void)arg;
  int old = -1;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
  printf("  old state enabled=%d\n", old == PTHREAD_CANCEL_ENABLE);
  pthread_cleanup_push(say, "disabled");
  usleep(1000000); /* the cancel arrives meanwhile (after a settle) */
  printf("  slept through the cancel\n");
  pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
  printf("  enabled again, old disabled=%d\n", old == PTHREAD_CANCEL_DISABLE);
  pthread_testcancel();
  printf("  after testcancel\n");
  pthread_cleanup_pop(0);
  return NULL;
}

static void *no_point_worker(void *arg) {
  (void)arg;
  pthread_cleanup_push(say, "no_point");
  /* No cancellation point here: an atomic flag the canceler sets after
   * its cancel, and a mutex, which is none. */
  while (!atomic_load(&go)) {}
  static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  for (int i = 0; i < 3; i++) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
  }
  printf("  no_point ran on\n");
  pthread_testcancel();
  printf("  after testcancel\n");
  pthread_cleanup_pop(0);
  return NULL;
}

static void *quick(void *arg) { return arg; }

static void *self_cancel(void *arg) {
  (void)arg;
  pthread_cleanup_push(say, "self");
  int r = pthread_cancel(pthread_self());
  printf("  self cancel=%d, still running\n", r);
  usleep(1000);
  printf("  after usleep\n");
  pthread_cleanup_pop(0);
  return NULL;
}

int main(void) {
  pthread_t t;
  printf("disabled:\n");
  pthread_create(&t, NULL, disabled_worker, NULL);
  settle();
  printf("cancel=%d\n", pthread_cancel(t));
  join_report("disabled", t);

  printf("no cancellation point:\n");
  pthread_create(&t, NULL, no_point_worker, NULL);
  printf("cancel=%d\n", pthread_cancel(t));
  atomic_store(&go, 1);
  join_report("no_point", t);

  printf("finished, not joined:\n");
  pthread_create(&t, NULL, quick, (void *)5);
  settle();
  printf("cancel=%d\n", pthread_cancel(t));
  join_report("finished", t);

  printf("self:\n");
  pthread_create(&t, NULL, self_cancel, NULL);
  join_report("self", t);

  int old;
  printf("setcancelstate(99)=%s\n", ename(pthread_setcancelstate(99, &old)));
  printf("setcanceltype(99)=%s\n", ename(pthread_setcanceltype(99, &old)));
  printf("setcanceltype(deferred)=%d old_deferred=%d\n", pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old),
         old == PTHREAD_CANCEL_DEFERRED);
  return 0;
}
