/* Interceptors: clocks and sleeps, on virtual time.
 *
 * A clock read is a yield point that advances virtual time by clock_step_ns
 * (so code spinning on the clock progresses); a sleep blocks the thread
 * until virtual time reaches its deadline, which costs no real time: when no
 * thread can run, the scheduler jumps the clock to the next deadline.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/time.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "sched/sched.h"
#include "time/time.h"
#include "machine/machine.h"
#include "core/core.h"
#include "intercept/intercept.h"
#include "sanitize/sanitize.h"

static int sim_clock_read(clockid_t id, struct timespec *ts, uintptr_t pc) {
  detsim_thread *self = detsim__self();
  if (self != NULL) {
    detsim__yield_aux(DETSIM_EV_clock_read, NULL, pc, (uint32_t)id);
    detsim__clock_advance_by(detsim__opt.clock_step_ns);
    detsim__cpu_charge(self, detsim__opt.clock_step_ns);
  }
  /* CPU-time clocks count what threads ran (machine_cputime.c). */
  if (detsim__cpu_clock(id)) return detsim__cpu_clock_read(id, ts);
  return detsim__clock_read(id, ts);
}

DETSIM_EXPORT int __detsim_clock_gettime(clockid_t id, struct timespec *ts) {
  if (!detsim__running() || DETSIM_SANITIZER_INTERNAL()) return REAL(clock_gettime)(id, ts);
  int r = sim_clock_read(id, ts, (uintptr_t)__builtin_return_address(0));
  if (r != 0) {
    errno = r;
    return -1;
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(clock_gettime)

DETSIM_EXPORT int __detsim_clock_getres(clockid_t id, struct timespec *res) {
  if (!detsim__running()) return REAL(clock_getres)(id, res);
  struct timespec probe;
  if (detsim__clock_read(id, &probe) != 0) {
    errno = EINVAL;
    return -1;
  }
  if (res) {
    res->tv_sec = 0;
    res->tv_nsec = 1;
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(clock_getres)

DETSIM_EXPORT int __detsim_gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  if (!detsim__running()) return REAL(gettimeofday)(tv, tz);
  struct timespec ts;
  sim_clock_read(CLOCK_REALTIME, &ts, (uintptr_t)__builtin_return_address(0));
  if (tv) {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  if (tz) {
    struct timezone *z = tz;
    z->tz_minuteswest = 0;
    z->tz_dsttime = 0;
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(gettimeofday)

DETSIM_EXPORT time_t __detsim_time(time_t *out) {
  if (!detsim__running()) return REAL(time)(out);
  struct timespec ts;
  sim_clock_read(CLOCK_REALTIME, &ts, (uintptr_t)__builtin_return_address(0));
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}
DETSIM_INTERCEPT_ALIAS(time)

DETSIM_EXPORT int __detsim_timespec_get(struct timespec *ts, int base) {
  if (!detsim__running()) return REAL(timespec_get)(ts, base);
  if (base != TIME_UTC) return 0;
  sim_clock_read(CLOCK_REALTIME, ts, (uintptr_t)__builtin_return_address(0));
  return base;
}
DETSIM_INTERCEPT_ALIAS(timespec_get)

DETSIM_EXPORT clock_t __detsim_clock(void) {
  if (!detsim__running()) return REAL(clock)();
  struct timespec ts;
  sim_clock_read(CLOCK_PROCESS_CPUTIME_ID, &ts, (uintptr_t)__builtin_return_address(0));
  return (clock_t)((uint64_t)ts.tv_sec * CLOCKS_PER_SEC + (uint64_t)ts.tv_nsec / (1000000000ull / CLOCKS_PER_SEC));
}
DETSIM_INTERCEPT_ALIAS(clock)

/* ---- sleeps ---- */

static bool never_ready(void *arg) {
  (void)arg;
  return false;
}

/* Sleeps until virtual time reaches `deadline`: 0, or EINTR when a
 * signal's handler ran first (sleeps never restart). */
static int sim_sleep_until(uint64_t deadline, uintptr_t pc) {
  detsim__yield_aux(DETSIM_EV_sleep, NULL, pc, 0);
  if (deadline <= detsim__now_ns()) return 0;
  return detsim__block_intr(DETSIM_EV_sleep, NULL, never_ready, NULL, deadline) == EINTR ? EINTR : 0;
}

static void time_left(uint64_t deadline, struct timespec *rem) {
  if (rem == NULL) return;
  uint64_t now = detsim__now_ns(), left = deadline > now ? deadline - now : 0;
  rem->tv_sec = (time_t)(left / 1000000000ull);
  rem->tv_nsec = (long)(left % 1000000000ull);
}

DETSIM_EXPORT int __detsim_nanosleep(const struct timespec *req, struct timespec *rem) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(nanosleep)(req, rem);
  if (!detsim__timespec_valid(req)) {
    errno = EINVAL;
    return -1;
  }
  uint64_t deadline = detsim__deadline_after(req);
  if (sim_sleep_until(deadline, (uintptr_t)__builtin_return_address(0)) == EINTR) {
    time_left(deadline, rem);
    errno = EINTR;
    return -1;
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(nanosleep)

DETSIM_EXPORT int __detsim_clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(clock_nanosleep)(id, flags, req, rem);
  /* Linux sleeps on no thread's CPU clock (CPUCLOCK_PERTHREAD, bit 2). */
  if (id == CLOCK_THREAD_CPUTIME_ID || (id < 0 && (id & 4))) return EINVAL;
  uint64_t deadline;
  if (flags & TIMER_ABSTIME) {
    int r = detsim__deadline_from_abstime(id, req, &deadline);
    if (r != 0) return r;
  } else {
    struct timespec probe;
    if (detsim__clock_read(id, &probe) != 0 || !detsim__timespec_valid(req)) return EINVAL;
    deadline = detsim__deadline_after(req);
  }
  if (sim_sleep_until(deadline, (uintptr_t)__builtin_return_address(0)) == EINTR) {
    if (!(flags & TIMER_ABSTIME)) time_left(deadline, rem);
    return EINTR;
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(clock_nanosleep)

DETSIM_EXPORT int __detsim_usleep(useconds_t usec) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(usleep)(usec);
  struct timespec ts = { (time_t)(usec / 1000000u), (long)(usec % 1000000u) * 1000L };
  if (sim_sleep_until(detsim__deadline_after(&ts), (uintptr_t)__builtin_return_address(0)) == EINTR) {
    errno = EINTR;
    return -1;
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(usleep)

DETSIM_EXPORT unsigned int __detsim_sleep(unsigned int seconds) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(sleep)(seconds);
  struct timespec ts = { (time_t)seconds, 0 };
  uint64_t deadline = detsim__deadline_after(&ts);
  if (sim_sleep_until(deadline, (uintptr_t)__builtin_return_address(0)) == EINTR) {
    struct timespec left;
    time_left(deadline, &left);
    return (unsigned)left.tv_sec + (left.tv_nsec > 0); /* whole seconds left, rounded up */
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sleep)

DETSIM_EXPORT int __detsim_thrd_sleep(const struct timespec *duration, struct timespec *remaining) {
  DETSIM_CANCEL_POINT();
  if (detsim__self() == NULL) return REAL(thrd_sleep)(duration, remaining);
  if (!detsim__timespec_valid(duration)) return -2;
  uint64_t deadline = detsim__deadline_after(duration);
  if (sim_sleep_until(deadline, (uintptr_t)__builtin_return_address(0)) == EINTR) {
    time_left(deadline, remaining);
    return -1;
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(thrd_sleep)
