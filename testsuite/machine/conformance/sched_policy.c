/* Scheduling policies as the program set them: SCHED_OTHER by default,
 * the policy set is the policy read, threads inherit it; bad policies and
 * priorities are EINVAL. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static int child_policy = -1;

static void *child(void *arg) {
  (void)arg;
  child_policy = sched_getscheduler(0);
  return NULL;
}

int main(void) {
  struct sched_param p = { 0 };
  printf("default=%s\n", sched_getscheduler(0) == SCHED_OTHER ? "SCHED_OTHER" : "other");
  sched_getparam(0, &p);
  printf("priority=%d\n", p.sched_priority);
  int policy = -1;
  pthread_getschedparam(pthread_self(), &policy, &p);
  printf("pthread_default=%d\n", policy == SCHED_OTHER);
  p.sched_priority = 0;
  printf("set_batch=%d\n", sched_setscheduler(0, SCHED_BATCH, &p));
  printf("now_batch=%d\n", sched_getscheduler(0) == SCHED_BATCH);
  pthread_t t;
  pthread_create(&t, NULL, child, NULL);
  pthread_join(t, NULL);
  printf("child_inherits_batch=%d\n", child_policy == SCHED_BATCH);
  printf("set_other=%d now_other=%d\n", sched_setscheduler(0, SCHED_OTHER, &p), sched_getscheduler(0) == SCHED_OTHER);
  p.sched_priority = 5;
  int r = sched_setscheduler(0, SCHED_OTHER, &p);
  printf("other_prio5=%d %s\n", r, r < 0 && errno == EINVAL ? "EINVAL" : "");
  p.sched_priority = 0;
  r = sched_setscheduler(0, 12345, &p);
  printf("bad_policy=%d %s\n", r, r < 0 && errno == EINVAL ? "EINVAL" : "");
  r = pthread_setschedparam(pthread_self(), SCHED_BATCH, &p);
  pthread_getschedparam(pthread_self(), &policy, &p);
  printf("pthread_set_batch=%d read_batch=%d\n", r, policy == SCHED_BATCH);
  return 0;
}
