/* Where a deferred cancel lands depends on the schedule: a worker counts in
 * a loop whose only cancellation point is pthread_testcancel, and its
 * cleanup handler prints how far it got.  Different seeds stop it at
 * different counts (explore); the same seed stops it at the same count in
 * every process (replay).  A request to a thread already joined is ESRCH,
 * and an asynchronous worker is stopped at one of its yield points. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_long count;

static void report(void *arg) { printf("%s stopped at %ld\n", (const char *)arg, atomic_load(&count)); }

static void *deferred(void *arg) {
  (void)arg;
  pthread_cleanup_push(report, "deferred");
  for (;;) {
    atomic_fetch_add(&count, 1);
    pthread_testcancel();
  }
  pthread_cleanup_pop(0);
  return NULL;
}

static void *async(void *arg) {
  (void)arg;
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
  pthread_cleanup_push(report, "async");
  for (;;) atomic_fetch_add(&count, 1);
  pthread_cleanup_pop(0);
  return NULL;
}

static void run(void *(*fn)(void *)) {
  atomic_store(&count, 0);
  pthread_t t;
  pthread_create(&t, NULL, fn, NULL);
  usleep(1);
  pthread_cancel(t);
  void *ret;
  pthread_join(t, &ret);
  printf("canceled=%d\n", ret == PTHREAD_CANCELED);
  int r = pthread_cancel(t);
  printf("cancel after join=%s\n", r == ESRCH ? "ESRCH" : strerror(r));
}

int main(void) {
  run(deferred);
  run(async);
  return 0;
}
