/* Time under load: main sleeps `sleep_ms` while helper threads work until it
 * wakes, each helper doing one kind of work a real service does: locking a
 * mutex, signalling a condition variable, sending itself a signal, reading
 * the clock, or pure arithmetic between calls.  The wall time of the whole
 * program is what bench/time_under_load.sh compares with native: natively it
 * is the sleep; under detsim it is the real time the helpers' events take
 * to advance virtual time by the sleep.
 *
 *   busy_while_sleeping KIND SLEEP_MS
 *   KIND: mutex | cond | signal | clock | compute
 *
 * Prints the kind and the iterations the helper made (natively a function of
 * the machine's speed; under detsim of the cost model).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_int stop;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile sig_atomic_t taken;
static const char *kind;
static uint64_t sink;

static void on_usr1(int sig) { (void)sig; taken++; }

/* A few hundred instructions of arithmetic no compiler folds away. */
static uint64_t work(uint64_t x) {
  for (int i = 0; i < 64; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

static void *helper(void *arg) {
  (void)arg;
  uint64_t n = 0, x = 1;
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    if (strcmp(kind, "mutex") == 0) {
      pthread_mutex_lock(&mu);
      x++;
      pthread_mutex_unlock(&mu);
    } else if (strcmp(kind, "cond") == 0) {
      pthread_mutex_lock(&mu);
      pthread_cond_signal(&cv);
      pthread_mutex_unlock(&mu);
    } else if (strcmp(kind, "signal") == 0) {
      pthread_kill(pthread_self(), SIGUSR1);
    } else if (strcmp(kind, "clock") == 0) {
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC, &ts);
      x += (uint64_t)ts.tv_nsec;
    } else {
      x = work(x);
    }
    n++;
  }
  sink = x;
  return (void *)(uintptr_t)n;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: busy_while_sleeping mutex|cond|signal|clock|compute SLEEP_MS\n");
    return 2;
  }
  kind = argv[1];
  long ms = atol(argv[2]);
  signal(SIGUSR1, on_usr1);
  pthread_t t;
  pthread_create(&t, NULL, helper, NULL);
  struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&d, NULL);
  atomic_store(&stop, 1);
  void *r;
  pthread_join(t, &r);
  printf("%s iterations=%llu\n", kind, (unsigned long long)(uintptr_t)r);
  return 0;
}
