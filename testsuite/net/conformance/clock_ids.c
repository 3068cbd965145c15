/* Conformance: clock ids that are not among the fixed ones.
 *
 * Linux encodes CPU-time clocks as negative ids (MAKE_PROCESS_CPUCLOCK,
 * MAKE_THREAD_CPUCLOCK: ~pid << 3 | type, thread clocks with bit 2), as
 * clock_getcpuclockid and pthread_getcpuclockid return them; -1 and other
 * ids that name no clock are EINVAL for clock_gettime, clock_getres,
 * clock_settime and clock_nanosleep (which returns the error).
 */
#include <semaphore.h>
#include <time.h>

#include "conf.h"

#define CPUCLOCK_PROF 0
#define CPUCLOCK_SCHED 2
#define CPUCLOCK_PERTHREAD 4
#define CPUCLOCK_MAX 3
#define MAKE_PROCESS_CPUCLOCK(pid, clock) ((clockid_t)((~(unsigned)(pid) << 3) | (clock)))
#define MAKE_THREAD_CPUCLOCK(tid, clock) MAKE_PROCESS_CPUCLOCK(tid, (clock) | CPUCLOCK_PERTHREAD)

static void show_clock(const char *label, clockid_t id) {
  struct timespec ts;
  char l[96];
  snprintf(l, sizeof l, "clock_gettime(%s)", label);
  SHOW(l, clock_gettime(id, &ts));
  snprintf(l, sizeof l, "clock_getres(%s)", label);
  SHOW(l, clock_getres(id, &ts));
}

static sem_t go;

static void *waiter(void *arg) {
  (void)arg;
  MUST(sem_wait(&go) == 0);
  return NULL;
}

int main(void) {
  show_clock("-1", -1);
  show_clock("-2", -2);
  show_clock("INT_MIN", (clockid_t)0x80000000u);
  show_clock("1000", 1000);
  show_clock("process CPUCLOCK_SCHED of self (0)", MAKE_PROCESS_CPUCLOCK(0, CPUCLOCK_SCHED));
  show_clock("process CPUCLOCK_PROF of getpid()", MAKE_PROCESS_CPUCLOCK(getpid(), CPUCLOCK_PROF));
  show_clock("process clock type 3 (CPUCLOCK_MAX)", MAKE_PROCESS_CPUCLOCK(getpid(), CPUCLOCK_MAX));
  show_clock("thread CPUCLOCK_SCHED of gettid()", MAKE_THREAD_CPUCLOCK(gettid(), CPUCLOCK_SCHED));
  show_clock("process clock of pid 5000000", MAKE_PROCESS_CPUCLOCK(5000000, CPUCLOCK_SCHED));
  show_clock("thread clock of tid 5000000", MAKE_THREAD_CPUCLOCK(5000000, CPUCLOCK_SCHED));

  clockid_t c;
  SHOW("clock_getcpuclockid(0)", clock_getcpuclockid(0, &c));
  printf("  == MAKE_PROCESS_CPUCLOCK(0, SCHED): %d\n", c == MAKE_PROCESS_CPUCLOCK(0, CPUCLOCK_SCHED));
  SHOW("clock_getcpuclockid(getpid())", clock_getcpuclockid(getpid(), &c));
  printf("  == MAKE_PROCESS_CPUCLOCK(pid, SCHED): %d\n", c == MAKE_PROCESS_CPUCLOCK(getpid(), CPUCLOCK_SCHED));
  show_clock("clock_getcpuclockid(getpid())", c);
  SHOW("clock_getcpuclockid(5000000)", clock_getcpuclockid(5000000, &c));
  SHOW("pthread_getcpuclockid(self)", pthread_getcpuclockid(pthread_self(), &c));
  show_clock("pthread_getcpuclockid(self)", c);

  /* Another thread's clock, while it lives and once it is joined. */
  MUST(sem_init(&go, 0, 0) == 0);
  pthread_t t;
  MUST(pthread_create(&t, NULL, waiter, NULL) == 0);
  SHOW("pthread_getcpuclockid(other)", pthread_getcpuclockid(t, &c));
  show_clock("pthread_getcpuclockid(other) while it waits", c);
  MUST(sem_post(&go) == 0);
  MUST(pthread_join(t, NULL) == 0);
  show_clock("pthread_getcpuclockid(other) once joined", c);

  struct timespec ts = { 0, 0 };
  SHOW("clock_settime(-1)", clock_settime(-1, &ts));
  struct timespec d = { 0, 1000 };
  SHOW("clock_nanosleep(-1) (returns the error)", -clock_nanosleep(-1, 0, &d, NULL));
  SHOW("clock_nanosleep(1000)", -clock_nanosleep(1000, 0, &d, NULL));
  SHOW("clock_nanosleep(thread CPU clock of self)", -clock_nanosleep(MAKE_THREAD_CPUCLOCK(0, CPUCLOCK_SCHED), 0, &d, NULL));
  return 0;
}
