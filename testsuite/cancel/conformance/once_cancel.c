/* A pthread_once routine canceled in a cancellation point leaves the
 * control as if pthread_once had never been called: a thread waiting in
 * pthread_once for it then runs the routine itself, to the end, and later
 * calls return at once. */
#include "cancel_conf.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int runs, completed;

static void init_routine(void) {
  runs++;
  if (runs == 1) sleep(100); /* the first run is canceled here */
  completed++;
}

static void *first(void *arg) {
  (void)arg;
  pthread_once(&once, init_routine);
  printf("first: not reached\n");
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  pthread_once(&once, init_routine);
  return (void *)(intptr_t)completed;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, first, NULL);
  settle();
  pthread_create(&b, NULL, second, NULL); /* waits for the first run */
  settle();
  printf("cancel=%d\n", pthread_cancel(a));
  join_report("first", a);
  join_report("second", b);
  pthread_once(&once, init_routine);
  printf("runs=%d completed=%d\n", runs, completed);
  return 0;
}
