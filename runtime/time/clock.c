/* Virtual time: one clock for the world, read through every clock id.
 *
 * Only the baton holder moves the clock.  Readers outside the simulation
 * (a library's constructor before the runtime started) read without moving it.
 * A skewed node (time/time.h) reads it through its own rate and offset; every
 * conversion is exact integer arithmetic, so runs agree to the nanosecond.
 */
#include "time/time.h"

#include <errno.h>

#include "core/core.h"
#include "limits.h"
#include "machine/machine.h"
#include "world_abi.h"

/* CLOCK_REALTIME starts at 2024-01-01T00:00:00Z plus a per-seed offset of up
 * to a year, so programs see plausible dates that differ by seed. */
#define DETSIM_REALTIME_EPOCH_S 1704067200ull
/* The monotonic clocks start as if the machine had booted an hour ago. */
#define DETSIM_MONOTONIC_BOOT_NS (3600ull * 1000000000ull)

#define NS_PER_S 1000000000ull
/* A deadline too far to ever come (DETSIM_NO_DEADLINE is "none"). */
#define NEVER_NS (UINT64_MAX - 1)
/* The inverse of a drifting clock is first estimated, then settled by
 * single steps: the floors on both sides leave it a few ns off at most. */
#define SETTLE_STEPS_MAX 8

static const struct detsim_node_clock no_skew;
struct detsim_clock_state detsim__clock = { .skew = &no_skew };
#define C detsim__clock

void detsim__clock_init(uint64_t realtime_offset_ns) {
  C.now_ns = 0;
  C.realtime_base_ns = DETSIM_REALTIME_EPOCH_S * 1000000000ull + realtime_offset_ns;
}


void detsim__clock_follow(const struct detsim_node_clock *skew) {
  CHECK(skew != NULL);
  C.skew = skew;
  C.step_seen_ns = skew->step_ns; /* steps before this process are no jump for it */
}

int64_t detsim__clock_take_step(void) {
  int64_t delta = C.skew->step_ns - C.step_seen_ns;
  C.step_seen_ns = C.skew->step_ns;
  return delta;
}

static int64_t drift_ppb(void) {
  int64_t d = C.skew->drift_ppb;
  CHECK_LE(d < 0 ? -(uint64_t)d : (uint64_t)d, DETSIM_CLOCK_DRIFT_PPB_MAX);
  return d;
}

static int64_t realtime_offset_ns(void) {
  int64_t o = C.skew->realtime_offset_ns + C.skew->step_ns;
  CHECK_LE(o < 0 ? -(uint64_t)o : (uint64_t)o, DETSIM_CLOCK_OFFSET_NS_MAX);
  return o;
}

/* floor(x / 1e9) (C's division truncates toward zero). */
static int64_t floor_div_s(int64_t x) {
  int64_t q = x / (int64_t)NS_PER_S;
  return x % (int64_t)NS_PER_S < 0 ? q - 1 : q;
}

uint64_t detsim__clock_local_ns(uint64_t v) {
  int64_t d = drift_ppb();
  if (d == 0) return v;
  /* v + floor(v * d / 1e9) in 64 bits: whole seconds times d is exact, and
   * the rest of a second times d is below 1e9 * |d|. */
  int64_t extra = (int64_t)(v / NS_PER_S) * d + floor_div_s((int64_t)(v % NS_PER_S) * d);
  if (extra > 0 && v > UINT64_MAX - (uint64_t)extra) return DETSIM_CLOCK_LOCAL_NS_MAX;
  uint64_t local = v + (uint64_t)extra; /* |extra| < v: |d| < 1e9 */
  return local > DETSIM_CLOCK_LOCAL_NS_MAX ? DETSIM_CLOCK_LOCAL_NS_MAX : local;
}

uint64_t detsim__clock_virtual_ns(uint64_t local) {
  int64_t d = drift_ppb();
  if (d == 0) return local;
  if (local >= DETSIM_CLOCK_LOCAL_NS_MAX) return NEVER_NS;
  /* floor(local * 1e9 / (1e9 + d)), again without 128 bits. */
  uint64_t den = (uint64_t)((int64_t)NS_PER_S + d);
  uint64_t v = local / den * NS_PER_S + local % den * NS_PER_S / den;
  unsigned steps = 0;
  while (detsim__clock_local_ns(v) < local) {
    v++;
    CHECK_LT(++steps, SETTLE_STEPS_MAX);
  }
  while (v > 0 && detsim__clock_local_ns(v - 1) >= local) {
    v--;
    CHECK_LT(++steps, SETTLE_STEPS_MAX);
  }
  return v;
}

void detsim__clock_advance_to(uint64_t ns) {
  CHECK_GE(ns, C.now_ns); /* virtual time never goes back */
  C.now_ns = ns;
}


bool detsim__timespec_valid(const struct timespec *ts) {
  return ts != NULL && ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000L;
}

uint64_t detsim__timespec_ns(const struct timespec *ts) {
  uint64_t sec = (uint64_t)ts->tv_sec;
  if (sec >= DETSIM_CLOCK_LOCAL_NS_MAX / NS_PER_S) return DETSIM_CLOCK_LOCAL_NS_MAX;
  return sec * NS_PER_S + (uint64_t)ts->tv_nsec;
}

struct timespec detsim__ns_timespec(uint64_t ns) {
  struct timespec ts = { (time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S) };
  return ts;
}

static bool is_realtime(clockid_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_REALTIME_ALARM || id == CLOCK_TAI;
}

bool detsim__clock_is_realtime(clockid_t id) { return is_realtime(id); }

/* Dynamic CPU-time clocks (pthread_getcpuclockid, clock_getcpuclockid) have
 * negative ids; they read virtual time like the others. */
static bool clock_known(clockid_t id) {
  if (id < 0) return detsim__cpu_clock_valid(id) == 0;
  return id == CLOCK_REALTIME || id == CLOCK_MONOTONIC || id == CLOCK_PROCESS_CPUTIME_ID ||
         id == CLOCK_THREAD_CPUTIME_ID || id == CLOCK_MONOTONIC_RAW || id == CLOCK_REALTIME_COARSE ||
         id == CLOCK_MONOTONIC_COARSE || id == CLOCK_BOOTTIME || id == CLOCK_REALTIME_ALARM ||
         id == CLOCK_BOOTTIME_ALARM || id == CLOCK_TAI;
}

/* What clock `id` reads at the start of the run. */
static uint64_t clock_base(clockid_t id) {
  if (is_realtime(id)) return C.realtime_base_ns + (uint64_t)realtime_offset_ns(); /* the epoch dwarfs any offset */
  if (id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID || id < 0) return 0;
  return DETSIM_MONOTONIC_BOOT_NS;
}

int detsim__clock_read(clockid_t id, struct timespec *out) {
  if (!clock_known(id)) return EINVAL;
  uint64_t t = clock_base(id) + detsim__clock_local_ns(C.now_ns);
  if (id == CLOCK_TAI) t += 37ull * 1000000000ull; /* TAI-UTC since 2017 */
  out->tv_sec = (time_t)(t / 1000000000ull);
  out->tv_nsec = (long)(t % 1000000000ull);
  return 0;
}

uint64_t detsim__deadline_of_abs_ns(clockid_t id, uint64_t abs_ns) {
  uint64_t base = clock_base(id) + (id == CLOCK_TAI ? 37ull * 1000000000ull : 0);
  /* The node's clock reads abs_ns at the first virtual time its local
   * time reaches abs_ns - base: a drifting node wakes on its own clock. */
  uint64_t deadline = detsim__clock_virtual_ns(abs_ns <= base ? 0 : abs_ns - base);
  return deadline < C.now_ns ? C.now_ns : deadline;
}

/* The last absolute realtime time this thread turned into a deadline: kept
 * (not taken once), as a wait that loops (a mutex lost again after a wake)
 * blocks again with the same deadline. */
static __thread struct {
  bool valid;
  clockid_t id;
  uint64_t abs_ns, deadline_ns;
} last_abs __attribute__((tls_model("initial-exec")));

bool detsim__clock_take_abs(uint64_t deadline_ns, clockid_t *id, uint64_t *abs_ns) {
  if (!last_abs.valid || last_abs.deadline_ns != deadline_ns) return false;
  *id = last_abs.id;
  *abs_ns = last_abs.abs_ns;
  return true;
}

int detsim__deadline_from_abstime(clockid_t id, const struct timespec *abstime, uint64_t *deadline_ns) {
  if (!clock_known(id) || !detsim__timespec_valid(abstime)) return EINVAL;
  uint64_t sec = (uint64_t)abstime->tv_sec;
  if (sec > UINT64_MAX / NS_PER_S - 1) { *deadline_ns = NEVER_NS; return 0; }
  uint64_t abs_ns = sec * NS_PER_S + (uint64_t)abstime->tv_nsec;
  *deadline_ns = detsim__deadline_of_abs_ns(id, abs_ns);
  last_abs.valid = is_realtime(id);
  last_abs.id = id;
  last_abs.abs_ns = abs_ns;
  last_abs.deadline_ns = *deadline_ns;
  return 0;
}

uint64_t detsim__deadline_after(const struct timespec *rel) {
  uint64_t sec = (uint64_t)rel->tv_sec;
  if (sec > (UINT64_MAX - C.now_ns) / NS_PER_S - 1) return NEVER_NS;
  return detsim__deadline_after_ns(sec * NS_PER_S + (uint64_t)rel->tv_nsec);
}

uint64_t detsim__deadline_after_ns(uint64_t rel_ns) {
  /* Measured on the node's clock, as the kernel measures a relative
   * timeout on CLOCK_MONOTONIC. */
  uint64_t here = detsim__clock_local_ns(C.now_ns);
  if (rel_ns >= NEVER_NS - here) return NEVER_NS;
  uint64_t v = detsim__clock_virtual_ns(here + rel_ns);
  return v < C.now_ns ? C.now_ns : v;
}
