/* Schedule-dependent output: threads append their ids to a shared log under
 * a mutex, with atomics and clock reads in between.  The output is a
 * function of the schedule: the same seed must print the same log, and
 * different seeds different logs. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define THREADS 4
#define STEPS 8

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char log_text[THREADS * STEPS + 1];
static int log_len;
static atomic_long ticks;

static void *worker(void *arg) {
  long id = (long)arg;
  for (int i = 0; i < STEPS; i++) {
    atomic_fetch_add(&ticks, 1);
    pthread_mutex_lock(&m);
    log_text[log_len++] = (char)('a' + id);
    pthread_mutex_unlock(&m);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  printf("%s ticks=%ld\n", log_text, atomic_load(&ticks));
  return 0;
}
