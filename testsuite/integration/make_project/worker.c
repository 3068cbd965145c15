long worker_run(int threads, int rounds);

#include <detsim.h>
#include <pthread.h>

#define WORKER_THREADS_MAX 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static int rounds_each;

static void *work(void *arg) {
  (void)arg;
  for (int i = 0; i < rounds_each; i++) {
    pthread_mutex_lock(&lock);
    total++;
    pthread_mutex_unlock(&lock);
    detsim_progress();
  }
  return 0;
}

long worker_run(int threads, int rounds) {
  pthread_t t[WORKER_THREADS_MAX];
  if (threads > WORKER_THREADS_MAX) return -1;
  rounds_each = rounds;
  for (int i = 0; i < threads; i++) pthread_create(&t[i], 0, work, 0);
  for (int i = 0; i < threads; i++) pthread_join(t[i], 0);
  DETSIM_CHECK(total == (long)threads * rounds, "worker_total");
  return total;
}
