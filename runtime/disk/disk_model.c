/* The disk's timing and its storage faults (docs/disk.md).
 *
 * Timing: each host draws its disk from the seed once: a page-cache
 * latency and bandwidth for reads and writes, a device latency for syncs,
 * a latency for name operations.  Every modifying call on the disk is a
 * yield point that waits that long in virtual time.
 *
 * Faults: world_faults.c opens windows of the storage fault kinds on a host
 * (level 3); while one is open each call meets the fault at the window's
 * rate, drawn from the node's own stream (per incarnation), so a seed
 * replays.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "time/time.h"
#include "disk/disk.h"
#include "core/core.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "world/world.h"
#include "fuzz/fuzz.h"

#define S detsim__ws
#define PPM 1000000u

struct disk_timing {
  uint64_t io_ns, sync_ns, meta_ns; /* per call */
  uint64_t bytes_per_s;             /* page cache copy rate */
  uint64_t device_bytes_per_s;      /* what a sync of dirty bytes moves */
};
static struct disk_timing timing;
static bool timing_ready;

static uint64_t log_uniform(struct detsim_rng *r, uint64_t lo, uint64_t hi) {
  return (uint64_t)((double)lo * __builtin_exp(detsim__rng_unit(r) * __builtin_log((double)hi / (double)lo)));
}

static const struct disk_timing *draw_timing(void) {
  if (timing_ready) return &timing;
  char label[64];
  snprintf(label, sizeof label, "disk/timing/host/%u", detsim__in_world ? detsim__host_index : 0u);
  struct detsim_rng r;
  detsim__rng_init(&r, detsim__seed_child(detsim__seed(), label));
  timing.io_ns = log_uniform(&r, 1000, 20000);              /* 1-20 us a call */
  timing.bytes_per_s = log_uniform(&r, 1000000000ull, 10000000000ull);
  timing.sync_ns = log_uniform(&r, 20000, 5000000);         /* 20 us (NVMe) - 5 ms (disk) */
  timing.device_bytes_per_s = log_uniform(&r, 100000000ull, 3000000000ull);
  timing.meta_ns = log_uniform(&r, 2000, 50000);
  timing_ready = true;
  return &timing;
}

static bool never_ready(void *arg) {
  (void)arg;
  return false;
}

void disk_take_time(enum disk_op op, uint64_t bytes, uintptr_t pc) {
  detsim_thread *self = detsim__self();
  if (self == NULL) return;
  const struct disk_timing *t = draw_timing();
  uint64_t ns;
  switch (op) {
  case DISK_OP_SYNC: ns = t->sync_ns + bytes * 1000000000ull / t->device_bytes_per_s; break;
  case DISK_OP_META: ns = t->meta_ns; break;
  default: ns = t->io_ns + bytes * 1000000000ull / t->bytes_per_s; break;
  }
  if (disk_fault_hits(DETSIM_FAULT_SLOW)) {
    ns *= 10 + disk_fault_draw(990); /* a spike: 10x to 1000x */
    disk_fault_injected(DETSIM_FAULT_SLOW, pc);
  }
  if (pc == 0) {
    /* Inside a stdio stream, which holds its real lock: the time passes
     * without a preemption point (another thread there would wait in the
     * kernel). */
    detsim__clock_advance_by(ns);
    return;
  }
  detsim__yield_aux(DETSIM_EV_disk_io, NULL, pc, (uint32_t)op);
  detsim__block(DETSIM_EV_disk_io, NULL, never_ready, NULL, detsim__now_ns() + ns);
}

static struct detsim_rng fault_rng;
static bool fault_rng_ready;

static struct detsim_rng *fault_stream(void) {
  if (!fault_rng_ready) {
    char label[96];
    detsim__world_label(label, sizeof label, "faults/disk");
    detsim__rng_init(&fault_rng, detsim__seed_child(detsim__seed(), label));
    fault_rng_ready = true;
  }
  return &fault_rng;
}

/* In a world's choice mode the per-call draws take the input's bytes while
 * they last (which call fails, which block a corruption hits), then the
 * stream. */
static uint64_t fault_below(uint64_t n) { return detsim__choices_or_below(fault_stream(), n); }

uint64_t disk_fault_draw(uint64_t n) { return n ? fault_below(n) : 0; }

bool disk_fault_hits(unsigned kind) {
  if (!detsim__world_hosts() || kind < DETSIM_FAULT_EIO || kind > DETSIM_FAULT_EDQUOT) return false;
  const struct detsim_world_node *n = &S->nodes[detsim__host_index];
  unsigned k = kind - DETSIM_FAULT_EIO;
  if (detsim__now_ns() >= n->disk_until[k]) return false;
  if (__builtin_expect(detsim__choices_on, 0) && n->disk_ppm[k] == 0) return false; /* no byte for a rate of 0 */
  return fault_below(PPM) < n->disk_ppm[k];
}

int disk_full_fault(uintptr_t pc) {
  if (disk_fault_hits(DETSIM_FAULT_ENOSPC)) {
    disk_fault_injected(DETSIM_FAULT_ENOSPC, pc);
    return ENOSPC;
  }
  if (disk_fault_hits(DETSIM_FAULT_EDQUOT)) {
    disk_fault_injected(DETSIM_FAULT_EDQUOT, pc);
    return EDQUOT;
  }
  return 0;
}

void disk_fault_injected(unsigned kind, uintptr_t pc) {
  (void)pc;
  S->fault_counts[kind]++;
  if (kind == DETSIM_FAULT_CORRUPT || kind == DETSIM_FAULT_MISDIRECTED) S->disk_beyond = 1;
  detsim_thread *self = detsim__self();
  if (self) detsim__event(DETSIM_EV_disk_fault, self, NULL, pc, kind);
}

static void virtual_times(struct timespec ts[2]) {
  detsim__clock_read(CLOCK_REALTIME, &ts[0]);
  ts[1] = ts[0];
}

void disk_touch_fd(int fd) {
  if (detsim__self() == NULL) return;
  struct timespec ts[2];
  virtual_times(ts);
  futimens(fd, ts);
}

void disk_touch_path(const char *abs) {
  if (detsim__self() == NULL) return;
  struct timespec ts[2];
  virtual_times(ts);
  utimensat(AT_FDCWD, abs, ts, AT_SYMLINK_NOFOLLOW);
}
