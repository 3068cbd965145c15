/* Cleanup handlers and thread-specific data destructors that block: they
 * lock a mutex another thread holds, sleep, and signal a condition variable
 * that another thread waits on.  They run in order (last pushed first),
 * after a cancel and after a plain pthread_exit alike, and a destructor runs
 * after the handlers.  The waiter learns of each step through the cond, so
 * the printed order is the same however the threads interleave. */
#include <stdint.h>

#include "cancel_conf.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int step;            /* under m */
static pthread_key_t key;
static char log_buf[512];   /* under m */

static void note(const char *what) {
  strncat(log_buf, what, sizeof log_buf - strlen(log_buf) - 1);
  strncat(log_buf, " ", sizeof log_buf - strlen(log_buf) - 1);
}

/* Outer handler: locks the mutex (the canceler may hold it), sleeps with
 * it held, then signals the waiter. */
static void outer(void *arg) {
  pthread_mutex_lock(&m);
  note((const char *)arg);
  usleep(20000);
  step++;
  pthread_cond_broadcast(&c);
  pthread_mutex_unlock(&m);
}

/* Inner handler: sleeps before anything else. */
static void inner(void *arg) {
  usleep(30000);
  pthread_mutex_lock(&m);
  note((const char *)arg);
  pthread_mutex_unlock(&m);
}

static void destructor(void *value) {
  usleep(10000);
  pthread_mutex_lock(&m);
  note((const char *)value);
  step++;
  pthread_cond_broadcast(&c);
  pthread_mutex_unlock(&m);
}

static void *canceled_worker(void *arg) {
  (void)arg;
  pthread_setspecific(key, "dtor-A");
  pthread_cleanup_push(outer, "outer-A");
  pthread_cleanup_push(inner, "inner-A");
  for (;;) sleep(100);
  pthread_cleanup_pop(0);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *exiting_worker(void *arg) {
  (void)arg;
  pthread_setspecific(key, "dtor-B");
  pthread_cleanup_push(outer, "outer-B");
  pthread_cleanup_push(inner, "inner-B");
  pthread_cleanup_push(inner, "popped-B");
  pthread_cleanup_pop(1); /* runs now, before the exit */
  pthread_exit((void *)42);
  pthread_cleanup_pop(0);
  pthread_cleanup_pop(0);
  return NULL;
}

static void *returning_worker(void *arg) {
  (void)arg;
  pthread_setspecific(key, "dtor-C");
  return (void *)9;
}

/* Waits until the worker's handlers and destructor made `steps` steps. */
static void wait_steps(int steps) {
  pthread_mutex_lock(&m);
  while (step < steps) pthread_cond_wait(&c, &m);
  pthread_mutex_unlock(&m);
}

int main(void) {
  pthread_key_create(&key, destructor);

  pthread_t a;
  pthread_create(&a, NULL, canceled_worker, NULL);
  settle();
  pthread_mutex_lock(&m); /* the outer handler will wait for it */
  pthread_cancel(a);
  usleep(100000);
  pthread_mutex_unlock(&m);
  wait_steps(2);
  join_report("A", a);

  pthread_t b;
  pthread_create(&b, NULL, exiting_worker, NULL);
  wait_steps(4);
  join_report("B", b);

  pthread_t cth;
  pthread_create(&cth, NULL, returning_worker, NULL);
  wait_steps(5);
  join_report("C", cth);

  printf("log: %s\n", log_buf);
  return 0;
}
