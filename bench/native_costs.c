/* What the operations detsim's cost model prices cost natively on this
 * machine (runtime/time/event_costs.inc takes its numbers from a run of
 * this): ns per operation, median of 5 rounds, one thread, uncontended.
 *
 *   native_costs [N]      (N operations per round, default 200000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static atomic_uint_fast64_t counter;
static int fds[2];
static volatile sig_atomic_t taken;

static void on_usr1(int sig) { (void)sig; taken++; }

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void op_atomic(void) { atomic_fetch_add(&counter, 1); }
static void op_mutex(void) { pthread_mutex_lock(&mu); pthread_mutex_unlock(&mu); }
static void op_rwlock(void) { pthread_rwlock_rdlock(&rw); pthread_rwlock_unlock(&rw); }
static void op_cond_signal(void) { pthread_cond_signal(&cv); }
static void op_clock(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); }
static void op_yield(void) { sched_yield(); }
static void op_getrandom(void) { char b[16]; if (getrandom(b, sizeof b, 0) < 0) abort(); }
static void op_signal(void) { pthread_kill(pthread_self(), SIGUSR1); }
static void op_pipe(void) {
  char c = 'x';
  if (write(fds[1], &c, 1) != 1 || read(fds[0], &c, 1) != 1) abort();
}
static void *noop(void *a) { return a; }
static void op_thread(void) {
  pthread_t t;
  pthread_create(&t, NULL, noop, NULL);
  pthread_join(t, NULL);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void measure(const char *name, void (*op)(void), long n) {
  double r[5];
  for (int k = 0; k < 5; k++) {
    uint64_t t0 = now_ns();
    for (long i = 0; i < n; i++) op();
    r[k] = (double)(now_ns() - t0) / (double)n;
  }
  qsort(r, 5, sizeof r[0], cmp);
  printf("%-28s %8.1f ns\n", name, r[2]);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  signal(SIGUSR1, on_usr1);
  if (pipe(fds) != 0) return 1;
  measure("atomic fetch_add", op_atomic, n * 10);
  measure("mutex lock+unlock", op_mutex, n * 10);
  measure("rwlock rdlock+unlock", op_rwlock, n * 10);
  measure("cond_signal (no waiter)", op_cond_signal, n * 10);
  measure("clock_gettime (vDSO)", op_clock, n * 10);
  measure("sched_yield", op_yield, n);
  measure("getrandom 16 bytes", op_getrandom, n);
  measure("pipe write+read 1 byte", op_pipe, n);
  measure("pthread_kill self + handler", op_signal, n / 10);
  measure("pthread_create+join", op_thread, n / 100);
  return 0;
}
