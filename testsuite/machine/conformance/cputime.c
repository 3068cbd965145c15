/* CPU-time clocks count what a thread ran: a busy thread's advances, a
 * sleeping thread's does not, the process's is at least their sum, and
 * clock(), times() and getrusage() agree with CLOCK_PROCESS_CPUTIME_ID. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

static uint64_t ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t busy_cpu, sleeper_cpu, sleeper_wall;

static void *busy(void *arg) {
  (void)arg;
  uint64_t start = ns(CLOCK_THREAD_CPUTIME_ID);
  while (ns(CLOCK_THREAD_CPUTIME_ID) - start < 20000000ull) {
  }
  busy_cpu = ns(CLOCK_THREAD_CPUTIME_ID);
  return NULL;
}

static void *sleeper(void *arg) {
  (void)arg;
  uint64_t w = ns(CLOCK_MONOTONIC);
  struct timespec d = { 0, 100000000 };
  nanosleep(&d, NULL);
  sleeper_wall = ns(CLOCK_MONOTONIC) - w;
  sleeper_cpu = ns(CLOCK_THREAD_CPUTIME_ID);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&b, NULL, sleeper, NULL);
  pthread_create(&a, NULL, busy, NULL);
  clockid_t bc;
  printf("getcpuclockid=%d\n", pthread_getcpuclockid(a, &bc));
  pthread_join(b, NULL);
  pthread_join(a, NULL);
  printf("busy_cpu>=20ms=%d\n", busy_cpu >= 20000000ull);
  printf("sleeper_wall>=100ms=%d sleeper_cpu<10ms=%d\n", sleeper_wall >= 100000000ull, sleeper_cpu < 10000000ull);
  uint64_t proc = ns(CLOCK_PROCESS_CPUTIME_ID);
  printf("process>=sum=%d\n", proc >= busy_cpu + sleeper_cpu);
  clockid_t pc;
  printf("clock_getcpuclockid=%d", clock_getcpuclockid(0, &pc));
  struct timespec ts;
  printf(" read=%d\n", clock_gettime(pc, &ts));
  uint64_t dyn = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  printf("dynamic_process_clock_agrees=%d\n", dyn + 5000000ull >= proc && dyn < proc + 5000000ull);
  uint64_t main_cpu = ns(CLOCK_THREAD_CPUTIME_ID);
  printf("main_cpu<=process=%d\n", main_cpu <= ns(CLOCK_PROCESS_CPUTIME_ID));

  uint64_t p = ns(CLOCK_PROCESS_CPUTIME_ID);
  clock_t c = clock();
  struct tms t;
  clock_t elapsed = times(&t);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  long hz = sysconf(_SC_CLK_TCK);
  uint64_t clock_ns = (uint64_t)c * (1000000000ull / CLOCKS_PER_SEC);
  uint64_t times_ns = (uint64_t)(t.tms_utime + t.tms_stime) * (1000000000ull / (uint64_t)hz);
  uint64_t ru_ns = ((uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ull +
                    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec)) * 1000ull;
  /* Within 3 clock ticks (times' unit) plus what the reads themselves take. */
  uint64_t tol = 3 * (1000000000ull / (uint64_t)hz) + 2000000ull;
  printf("clock_agrees=%d\n", clock_ns + tol >= p && clock_ns <= p + tol);
  printf("times_agrees=%d elapsed>0=%d children=%ld\n", times_ns + tol >= p && times_ns <= p + tol, elapsed > 0,
         (long)(t.tms_cutime + t.tms_cstime));
  printf("getrusage_agrees=%d\n", ru_ns + tol >= p && ru_ns <= p + tol);
  struct rusage rt;
  getrusage(RUSAGE_THREAD, &rt);
  uint64_t rt_ns = ((uint64_t)(rt.ru_utime.tv_sec + rt.ru_stime.tv_sec) * 1000000ull +
                    (uint64_t)(rt.ru_utime.tv_usec + rt.ru_stime.tv_usec)) * 1000ull;
  printf("rusage_thread<=self=%d\n", rt_ns <= ru_ns + 1000000ull);
  return 0;
}
