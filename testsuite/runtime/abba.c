/* An ABBA lock-order inversion: one thread takes A then B, the other B then
 * A.  When each holds its first lock, both block forever. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static int shared;

static void *take_a_then_b(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock_a);
  pthread_mutex_lock(&lock_b);
  shared++;
  pthread_mutex_unlock(&lock_b);
  pthread_mutex_unlock(&lock_a);
  return NULL;
}

static void *take_b_then_a(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock_b);
  pthread_mutex_lock(&lock_a);
  shared++;
  pthread_mutex_unlock(&lock_a);
  pthread_mutex_unlock(&lock_b);
  return NULL;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, NULL, take_a_then_b, NULL);
  pthread_create(&t2, NULL, take_b_then_a, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("shared=%d\n", shared);
  return 0;
}
