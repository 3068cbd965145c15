/* Virtual time: one clock for the world, read through every clock id.
 *
 * Only the baton holder moves the clock.  Readers outside the simulation
 * (a library's constructor before the runtime started) read without moving it.
 */
#include "clock.h"

#include <errno.h>

#include "check.h"
#include "options.h"

/* CLOCK_REALTIME starts at 2024-01-01T00:00:00Z plus a per-seed offset of up
 * to a year, so programs see plausible dates that differ by seed. */
#define DETSIM_REALTIME_EPOCH_S 1704067200ull
/* The monotonic clocks start as if the machine had booted an hour ago. */
#define DETSIM_MONOTONIC_BOOT_NS (3600ull * 1000000000ull)

struct detsim_clock_state detsim__clock;
#define C detsim__clock

void detsim__clock_init(uint64_t realtime_offset_ns) {
  C.now_ns = 0;
  C.realtime_base_ns = DETSIM_REALTIME_EPOCH_S * 1000000000ull + realtime_offset_ns;
}


void detsim__clock_advance_to(uint64_t ns) {
  CHECK_GE(ns, C.now_ns); /* virtual time never goes back */
  C.now_ns = ns;
}


bool detsim__timespec_valid(const struct timespec *ts) {
  return ts != NULL && ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000L;
}

static bool is_realtime(clockid_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_REALTIME_ALARM || id == CLOCK_TAI;
}

/* Dynamic CPU-time clocks (pthread_getcpuclockid, clock_getcpuclockid) have
 * negative ids; they read virtual time like the others. */
static bool clock_known(clockid_t id) {
  return id < 0 || id == CLOCK_REALTIME || id == CLOCK_MONOTONIC || id == CLOCK_PROCESS_CPUTIME_ID ||
         id == CLOCK_THREAD_CPUTIME_ID || id == CLOCK_MONOTONIC_RAW || id == CLOCK_REALTIME_COARSE ||
         id == CLOCK_MONOTONIC_COARSE || id == CLOCK_BOOTTIME || id == CLOCK_REALTIME_ALARM ||
         id == CLOCK_BOOTTIME_ALARM || id == CLOCK_TAI;
}

static uint64_t clock_base(clockid_t id) {
  if (is_realtime(id)) return C.realtime_base_ns;
  if (id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID || id < 0) return 0;
  return DETSIM_MONOTONIC_BOOT_NS;
}

int detsim__clock_read(clockid_t id, struct timespec *out) {
  if (!clock_known(id)) return EINVAL;
  uint64_t t = clock_base(id) + C.now_ns;
  if (id == CLOCK_TAI) t += 37ull * 1000000000ull; /* TAI-UTC since 2017 */
  out->tv_sec = (time_t)(t / 1000000000ull);
  out->tv_nsec = (long)(t % 1000000000ull);
  return 0;
}

int detsim__deadline_from_abstime(clockid_t id, const struct timespec *abstime, uint64_t *deadline_ns) {
  if (!clock_known(id) || !detsim__timespec_valid(abstime)) return EINVAL;
  uint64_t base = clock_base(id) + (id == CLOCK_TAI ? 37ull * 1000000000ull : 0);
  uint64_t sec = (uint64_t)abstime->tv_sec;
  if (sec > UINT64_MAX / 1000000000ull - 1) { *deadline_ns = UINT64_MAX - 1; return 0; }
  uint64_t abs_ns = sec * 1000000000ull + (uint64_t)abstime->tv_nsec;
  *deadline_ns = abs_ns <= base ? 0 : abs_ns - base;
  if (*deadline_ns < C.now_ns) *deadline_ns = C.now_ns;
  return 0;
}

uint64_t detsim__deadline_after(const struct timespec *rel) {
  uint64_t sec = (uint64_t)rel->tv_sec;
  if (sec > (UINT64_MAX - C.now_ns) / 1000000000ull - 1) return UINT64_MAX - 1;
  return C.now_ns + sec * 1000000000ull + (uint64_t)rel->tv_nsec;
}
