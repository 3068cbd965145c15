/* A signed overflow that UndefinedBehaviorSanitizer reports: a counter two
 * threads add to under a lock, started near INT_MAX. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int counter = INT_MAX - 1;

static void *add(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  counter = counter + 1; /* the second addition overflows */
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, add, NULL);
  pthread_create(&b, NULL, add, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("%d\n", counter);
  return 0;
}
