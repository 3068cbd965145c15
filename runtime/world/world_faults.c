/* Faults of a world, by level (DESIGN.md's table; world_abi.h).
 *
 * At level 2 and up each seed draws its own swarm once, at the world's first
 * use: which fault kinds are on, how many, when, for how long, between which
 * nodes.  The schedule lives in the world's header; whichever node holds the
 * world when a fault's time comes applies it, so faults take their place in
 * the one history like any event.  Every fault heals: partitions end,
 * pauses end, crashed nodes restart; only a node's clock stays askew.
 * What is modeled:
 *  - partitions, symmetric or one-way, between two sets of nodes: a link
 *    stalls (TCP bytes, handshakes, FIN and RST wait for the heal; nothing is
 *    lost or reordered) and UDP datagrams are lost;
 *  - clogs: one direction of one pair of nodes stalls as a partition's
 *    links do, more often and for less long, and UDP datagrams wait too
 *    (a queue that stalls loses nothing);
 *  - pauses: a node is not scheduled until the pause ends;
 *  - crashes of servers (never clients, never `protect`ed nodes), as a dead
 *    process or a dead host (net_node.c), each followed by a restart;
 *  - resets of one established connection between nodes;
 *  - SIGTERM to servers (as an orchestrator stops one): a node that still
 *    runs at the end of its grace period is killed (a crash as a dead
 *    process), and either way it restarts;
 *  - skew: a node's clocks run at their own rate from the start, and its
 *    CLOCK_REALTIME is offset (clock.c), as an unsynchronized host's are;
 *  - steps: a node's CLOCK_REALTIME jumps, forward or back, as NTP steps a
 *    host's clock; waits and timers for an absolute realtime time follow
 *    it (sched.c), relative ones and CLOCK_MONOTONIC do not.
 * In choice mode (a choices file given to the launcher) every draw of the
 * schedule takes the world's choices bytes first (draws below), so a
 * fuzzer's input decides which faults come, when, where and for how long.
 * At level 3 (radioactive) also storage faults, a window of each kind on a
 * server's disk (runtime/disk/): EIO, a full disk, slow calls; beyond the
 * envelope, corrupt reads and misdirected writes.  A crash as a dead host
 * there is also a power loss (world_lifecycle.c).
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/core.h"
#include "net/net.h"
#include "time/time.h"
#include "sched/sched.h"
#include "trace/trace.h"
#include "world/world.h"
#include "fuzz/fuzz.h"

#define S detsim__ws

bool detsim__world_faults_held;
/* Partitions last 20 ms to 2 s, pauses 10 ms to 1 s (log-uniform). */
#define PARTITION_MIN_NS 20000000ull
#define PARTITION_MAX_NS 2000000000ull
#define PAUSE_MIN_NS 10000000ull
#define PAUSE_MAX_NS 1000000000ull
/* A crashed node is down 50 ms to 2 s before its restart. */
#define DOWN_MIN_NS 50000000ull
#define DOWN_MAX_NS 2000000000ull
/* The datagram and short-I/O faults last 200 ms to 3 s. */
#define IO_WINDOW_MIN_NS 200000000ull
#define IO_WINDOW_MAX_NS 3000000000ull
/* Clogs last 10 ms to 1 s: shorter than partitions, as a congested queue or
 * a burst of retransmissions is, and more of them. */
#define CLOG_MIN_NS 10000000ull
#define CLOG_MAX_NS 1000000000ull
/* A skewed node's CLOCK_REALTIME is off by 1 ms to 5 s either way (a host
 * whose NTP is off or not yet synchronized), and its clocks drift by 1 to
 * 500 ppm either way (a quartz's spread; NTP corrects up to 500 ppm). */
#define SKEW_OFFSET_MIN_NS 1000000ull
#define SKEW_OFFSET_MAX_NS 5000000000ull
#define SKEW_DRIFT_MIN_PPB 1000ull
#define SKEW_DRIFT_MAX_PPB 500000ull
_Static_assert(SKEW_OFFSET_MAX_NS <= (uint64_t)DETSIM_CLOCK_OFFSET_NS_MAX, "a drawn offset is one clock.c accepts");
_Static_assert(SKEW_DRIFT_MAX_PPB <= DETSIM_CLOCK_DRIFT_PPB_MAX, "a drawn drift is one clock.c accepts");
/* A step moves CLOCK_REALTIME by 1 ms to 10 min either way (a host whose
 * clock NTP sets after a long drift, or an operator's `date -s`). */
#define STEP_MIN_NS 1000000ull
#define STEP_MAX_NS 600000000000ull

/* The most of each kind one seed draws, and the schedule entries each takes
 * (a partition has its heal, a crash its restart); they all fit. */
#define PARTITIONS_MAX 3
#define PAUSES_MAX 3
#define CRASHES_MAX 2
#define RESETS_MAX 3
#define CLOGS_MAX 8
#define SKEWED_NODES_MAX 16
/* A SIGTERM stop is three entries: the signal, the kill, the restart. */
#define TERMS_MAX 1
#define STEPS_MAX 3
_Static_assert(SKEW_OFFSET_MAX_NS + STEPS_MAX * STEP_MAX_NS <= (uint64_t)DETSIM_CLOCK_OFFSET_NS_MAX,
               "a node's skew and all its steps stay an offset clock.c accepts");
/* The datagram and short-I/O faults are one window each; so is each storage
 * fault kind at level 3. */
#define IO_WINDOWS_MAX 2
#define DISK_WINDOWS_MAX DETSIM_DISK_FAULT_WINDOWS
_Static_assert(2 * PARTITIONS_MAX + PAUSES_MAX + 2 * CRASHES_MAX + RESETS_MAX + CLOGS_MAX + SKEWED_NODES_MAX +
                       3 * TERMS_MAX + IO_WINDOWS_MAX + STEPS_MAX + DISK_WINDOWS_MAX <=
                   DETSIM_WORLD_FAULTS_MAX,
               "a seed's whole swarm fits the schedule");

uint64_t detsim__world_link_open(unsigned src, unsigned dst, uint64_t t) {
  if (!detsim__in_world || src == dst) return t;
  uint64_t until = S->cut_until[src][dst];
  return t < until ? until : t;
}

bool detsim__world_link_drops(unsigned src, unsigned dst, uint64_t t) {
  return detsim__in_world && src != dst && t < S->drop_until[src][dst];
}

/* A pause is the host's: every process on it waits. */
uint64_t detsim__world_paused_until(unsigned node) { return S->nodes[detsim__world_host_of(node)].paused_until; }

bool detsim__world_paused(unsigned node) { return detsim__world_paused_until(node) > detsim__now_ns(); }

/* One fault kind's draws: its own stream of the seed, or in choice mode
 * the world's choices bytes while they last (fuzz_abi.h; docs/fuzzing.md
 * has the encoding), then that stream.  Without a choices file every draw is the stream's, as
 * it always was. */
struct draws {
  struct detsim_rng rng;
};

static bool choice_byte(uint8_t *b) { return __builtin_expect(detsim__choices_on, 0) && detsim__choices_next(b); }

/* In [0, 1): a byte b is (b + 0.5) / 256. */
static double d_unit(struct draws *d) {
  uint8_t b;
  if (choice_byte(&b)) return ((double)b + 0.5) / 256.0;
  return detsim__rng_unit(&d->rng);
}

/* In [0, n): the choices' bytes while they last (detsim__choices_below
 * has the encoding), then the kind's stream. */
static uint64_t d_below(struct draws *d, uint64_t n) { return detsim__choices_or_below(&d->rng, n); }

/* A set of nodes of `all` (a bit each): one byte per 8 nodes. */
static uint64_t d_nodes(struct draws *d, uint64_t all, unsigned n_nodes) {
  uint8_t b;
  if (!choice_byte(&b)) return detsim__rng_next(&d->rng) & all;
  uint64_t v = b;
  for (unsigned k = 8; k < n_nodes && choice_byte(&b); k += 8) v |= (uint64_t)b << k;
  return v & all;
}

/* Any 64-bit value (which connection a reset picks): one byte. */
static uint64_t d_next(struct draws *d) {
  uint8_t b;
  if (choice_byte(&b)) return b;
  return detsim__rng_next(&d->rng);
}

static uint64_t log_uniform(struct draws *r, uint64_t lo, uint64_t hi) {
  return (uint64_t)((double)lo * __builtin_exp(d_unit(r) * __builtin_log((double)hi / (double)lo)));
}

static void add(struct detsim_world_fault f) {
  CHECK_LT(S->n_faults, DETSIM_WORLD_FAULTS_MAX);
  unsigned i = S->n_faults++;
  /* Sorted by time (then kind), so they are met in order. */
  while (i > 0 && (S->faults[i - 1].at > f.at || (S->faults[i - 1].at == f.at && S->faults[i - 1].kind > f.kind))) {
    S->faults[i] = S->faults[i - 1];
    i--;
  }
  S->faults[i] = f;
}

/* The nodes a crash or a stop may pick: servers not `protect`ed. */
static unsigned crashable_nodes(unsigned *out) {
  unsigned n = 0;
  for (unsigned j = 0; j < S->n_hosts; j++)
    if (!S->nodes[j].client && !S->nodes[j].protect) out[n++] = j;
  return n;
}

/* A node already down at some time of [at, until]. */
static bool down_overlaps(unsigned node, uint64_t at, uint64_t until) {
  for (unsigned i = 0; i < S->n_faults; i++) {
    const struct detsim_world_fault *f = &S->faults[i];
    if ((f->kind == DETSIM_FAULT_CRASH || f->kind == DETSIM_FAULT_TERM) && f->node == node && f->at <= until &&
        at <= f->until)
      return true;
  }
  return false;
}

/* Each kind draws from a stream of its own, so turning one off (the
 * `faults` option) leaves the others' schedules as they were. */
static void stream(struct draws *r, const char *kind) {
  char label[48];
  snprintf(label, sizeof label, "faults/%s", kind);
  detsim__rng_init(&r->rng, detsim__seed_child(S->seed, label));
}

static void draw_partitions(uint64_t horizon) {
  struct draws r;
  stream(&r, "partition");
  uint64_t all = S->n_hosts >= 64 ? ~0ull : (1ull << S->n_hosts) - 1;
  if (d_unit(&r) >= 0.75) return;
  unsigned k = 1 + (unsigned)d_below(&r, PARTITIONS_MAX);
  for (unsigned i = 0; i < k; i++) {
    uint64_t side = 0;
    while (side == 0 || side == all) side = d_nodes(&r, all, S->n_hosts);
    struct detsim_world_fault f = { 0 };
    f.group = S->n_groups++;
    f.at = d_below(&r, horizon);
    f.until = f.at + log_uniform(&r, PARTITION_MIN_NS, PARTITION_MAX_NS);
    f.kind = d_unit(&r) < 0.3 ? DETSIM_FAULT_ONE_WAY : DETSIM_FAULT_PARTITION;
    f.side_a = side;
    add(f);
    struct detsim_world_fault h = f;
    h.at = f.until;
    h.kind = DETSIM_FAULT_HEAL;
    add(h);
  }
}

static void draw_pauses(uint64_t horizon) {
  struct draws r;
  stream(&r, "pause");
  if (d_unit(&r) >= 0.5) return;
  unsigned k = 1 + (unsigned)d_below(&r, PAUSES_MAX);
  for (unsigned i = 0; i < k; i++) {
    struct detsim_world_fault f = { 0 };
    f.group = S->n_groups++;
    f.at = d_below(&r, horizon);
    f.until = f.at + log_uniform(&r, PAUSE_MIN_NS, PAUSE_MAX_NS);
    f.kind = DETSIM_FAULT_PAUSE;
    f.node = (uint32_t)d_below(&r, S->n_hosts);
    add(f);
  }
}

static void draw_crashes(uint64_t horizon) {
  struct draws r;
  stream(&r, "crash");
  unsigned cands[DETSIM_WORLD_NODES_MAX], nc = crashable_nodes(cands);
  if (nc == 0 || d_unit(&r) >= 0.5) return;
  unsigned k = 1 + (unsigned)d_below(&r, CRASHES_MAX);
  for (unsigned i = 0; i < k; i++) {
    struct detsim_world_fault f = { 0 };
    f.group = S->n_groups++;
    f.kind = DETSIM_FAULT_CRASH;
    f.node = cands[d_below(&r, nc)];
    f.at = d_below(&r, horizon);
    f.until = f.at + log_uniform(&r, DOWN_MIN_NS, DOWN_MAX_NS);
    f.arg = d_unit(&r) < 0.5; /* a dead host, or a dead process */
    if (down_overlaps(f.node, f.at, f.until)) continue;
    add(f);
    struct detsim_world_fault back = f;
    back.kind = DETSIM_FAULT_RESTART;
    back.at = f.until;
    add(back);
  }
}

static void draw_resets(uint64_t horizon) {
  struct draws r;
  stream(&r, "reset");
  if (d_unit(&r) >= 0.5) return;
  unsigned k = 1 + (unsigned)d_below(&r, RESETS_MAX);
  for (unsigned i = 0; i < k; i++) {
    struct detsim_world_fault f = { 0 };
    f.group = S->n_groups++;
    f.at = f.until = d_below(&r, horizon);
    f.kind = DETSIM_FAULT_RESET;
    f.arg = d_next(&r); /* which connection: the arg-th alive then */
    add(f);
  }
}

/* A stop as an orchestrator does it: SIGTERM, SIGKILL at the end of the
 * grace period if the node still runs, a fresh process after a delay. */
static void draw_terms(uint64_t horizon) {
  struct draws r;
  stream(&r, "sigterm");
  unsigned cands[DETSIM_WORLD_NODES_MAX], nc = crashable_nodes(cands);
  if (nc == 0 || d_unit(&r) >= 0.5) return;
  struct detsim_world_fault f = { 0 };
  f.group = S->n_groups++;
  f.kind = DETSIM_FAULT_TERM;
  f.node = cands[d_below(&r, nc)];
  f.at = d_below(&r, horizon);
  uint64_t grace = detsim__opt.term_grace_ms * 1000000ull;
  uint64_t down = log_uniform(&r, DOWN_MIN_NS, DOWN_MAX_NS);
  f.until = f.at + grace + down;
  if (down_overlaps(f.node, f.at, f.until)) return;
  add(f);
  struct detsim_world_fault kill = f;
  kill.kind = DETSIM_FAULT_CRASH;
  kill.at = f.at + grace;
  kill.arg = 0; /* a dead process */
  add(kill);
  struct detsim_world_fault back = f;
  back.kind = DETSIM_FAULT_RESTART;
  back.at = f.until;
  back.arg = down; /* a node that exits sooner restarts this long after (below) */
  add(back);
}

static void drop(unsigned i) {
  CHECK_LT(i, S->n_faults);
  for (unsigned j = i; j + 1 < S->n_faults; j++) S->faults[j] = S->faults[j + 1];
  S->n_faults--;
}

/* A node the world's SIGTERM stopped exited before its grace period ended:
 * as an orchestrator would, it restarts its down time after the exit, not
 * after the grace period. */
void detsim__world_stopped(unsigned node) {
  for (unsigned i = S->next_fault; i < S->n_faults; i++) {
    struct detsim_world_fault f = S->faults[i];
    if (f.kind != DETSIM_FAULT_RESTART || f.node != node) continue;
    drop(i);
    /* Its SIGKILL at the end of the grace period (the same drawn fault) is
     * for this incarnation only: the next one must not get it. */
    for (unsigned k = S->next_fault; k < S->n_faults; k++)
      if (S->faults[k].group == f.group && S->faults[k].kind == DETSIM_FAULT_CRASH) {
        drop(k);
        break;
      }
    f.at = detsim__now_ns() + f.arg;
    add(f);
    return;
  }
}

static void draw_clogs(uint64_t horizon) {
  struct draws r;
  stream(&r, "clog");
  if (d_unit(&r) >= 0.5) return;
  unsigned k = 1 + (unsigned)d_below(&r, CLOGS_MAX);
  for (unsigned i = 0; i < k; i++) {
    struct detsim_world_fault f = { 0 };
    f.group = S->n_groups++;
    f.kind = DETSIM_FAULT_CLOG;
    f.at = d_below(&r, horizon);
    f.until = f.at + log_uniform(&r, CLOG_MIN_NS, CLOG_MAX_NS);
    f.node = (uint32_t)d_below(&r, S->n_hosts);
    unsigned dst = (unsigned)d_below(&r, S->n_hosts - 1);
    f.arg = dst < f.node ? dst : dst + 1; /* any node but the source */
    add(f);
  }
}

/* A magnitude in [lo, hi] (log-uniform) with a random sign. */
static int64_t signed_log_uniform(struct draws *r, uint64_t lo, uint64_t hi) {
  bool negative = d_unit(r) < 0.5;
  int64_t m = (int64_t)log_uniform(r, lo, hi);
  return negative ? -m : m;
}

/* Skew is there from the start (at 0, before any node's program runs: the
 * world's first dispatch applies it), so a node's clock never jumps. */
static void draw_skews(void) {
  struct draws r;
  stream(&r, "skew");
  if (d_unit(&r) >= 0.5) return;
  unsigned skewed = 0;
  for (unsigned j = 0; j < S->n_hosts && skewed < SKEWED_NODES_MAX; j++) {
    bool last_chance = j + 1 == S->n_hosts && skewed == 0; /* the kind is on: some node is askew */
    if (!last_chance && d_unit(&r) >= 0.5) continue;
    struct detsim_world_fault f = { 0 };
    f.group = S->n_groups++;
    f.kind = DETSIM_FAULT_SKEW;
    f.node = j;
    f.arg = (uint64_t)signed_log_uniform(&r, SKEW_OFFSET_MIN_NS, SKEW_OFFSET_MAX_NS);
    f.drift_ppb = signed_log_uniform(&r, SKEW_DRIFT_MIN_PPB, SKEW_DRIFT_MAX_PPB);
    add(f);
    skewed++;
  }
}

static void draw_steps(uint64_t horizon) {
  struct draws r;
  stream(&r, "step");
  if (d_unit(&r) >= 0.5) return;
  unsigned k = 1 + (unsigned)d_below(&r, STEPS_MAX);
  for (unsigned i = 0; i < k; i++) {
    struct detsim_world_fault f = { 0 };
    f.group = S->n_groups++;
    f.kind = DETSIM_FAULT_STEP;
    f.node = (uint32_t)d_below(&r, S->n_hosts);
    f.at = f.until = d_below(&r, horizon);
    f.arg = (uint64_t)signed_log_uniform(&r, STEP_MIN_NS, STEP_MAX_NS);
    add(f);
  }
}

/* A per-datagram or per-call fault's window, on in 1 seed of 2 (false
 * when off); r goes on to draw its rates. */
static bool draw_window(struct draws *r, const char *name, uint32_t kind, uint64_t horizon) {
  stream(r, name);
  if (d_unit(r) >= 0.5) return false;
  struct detsim_world_fault f = { 0 };
  f.group = S->n_groups++;
  f.kind = kind;
  f.at = d_below(r, horizon);
  f.until = f.at + log_uniform(r, IO_WINDOW_MIN_NS, IO_WINDOW_MAX_NS);
  add(f);
  return true;
}

/* Datagrams between nodes get lost, duplicated and reordered for a while,
 * at rates drawn per seed (a few in a thousand to a third). */
static void draw_udp(uint64_t horizon) {
  struct draws r;
  if (!draw_window(&r, "udp", DETSIM_FAULT_UDP, horizon)) return;
  S->udp_loss_ppm = (uint32_t)log_uniform(&r, 2000, 300000);
  S->udp_dup_ppm = (uint32_t)log_uniform(&r, 2000, 100000);
  S->udp_reorder_ppm = (uint32_t)log_uniform(&r, 5000, 300000);
  S->udp_reorder_max_ns = log_uniform(&r, 1000000, 50000000);
}

/* TCP reads between nodes return part of what has arrived, and
 * non-blocking writes take part of what they are given, for a while: the
 * byte stream is the same, its pieces are not the ones sent. */
static void draw_short(uint64_t horizon) {
  struct draws r;
  if (!draw_window(&r, "short", DETSIM_FAULT_SHORT, horizon)) return;
  S->short_ppm = (uint32_t)log_uniform(&r, 50000, 500000);
}

/* Level 3: a storage fault kind's window on one server's disk, in 1 seed
 * of 2, at a rate drawn per seed (log-uniform; the beyond-envelope kinds
 * rarer).  Its node is drawn among the servers a crash may pick (a client
 * checks what the servers keep). */
static void draw_disk(uint64_t horizon, uint32_t kind, const char *name, uint64_t ppm_lo, uint64_t ppm_hi) {
  unsigned cands[DETSIM_WORLD_NODES_MAX], nc = crashable_nodes(cands);
  struct draws r;
  if (nc == 0 || !draw_window(&r, name, kind, horizon)) return;
  struct detsim_world_fault *f = NULL;
  for (unsigned i = 0; i < S->n_faults; i++)
    if (S->faults[i].kind == kind) f = &S->faults[i];
  CHECK(f != NULL);
  f->node = cands[d_below(&r, nc)];
  f->arg = log_uniform(&r, ppm_lo, ppm_hi);
}

/* fault_drop: the drawn faults to leave out (bit i: group i), as a shrink
 * of a failing world tries subsets of its faults. */
static void drop_groups(uint64_t mask) {
  /* Numbered in schedule order, only the drawn faults that made it into
   * the schedule (a crash overlapping another is not), so every bit of
   * the mask stands for a fault that happens. */
  uint32_t dense[2 * DETSIM_WORLD_FAULTS_MAX];
  CHECK_LE(S->n_groups, 2 * DETSIM_WORLD_FAULTS_MAX);
  for (uint32_t g = 0; g < S->n_groups; g++) dense[g] = UINT32_MAX;
  uint32_t next = 0;
  for (unsigned i = 0; i < S->n_faults; i++) {
    uint32_t *d = &dense[S->faults[i].group];
    if (*d == UINT32_MAX) *d = next++;
    S->faults[i].group = *d;
  }
  S->n_groups = next;
  unsigned k = 0;
  for (unsigned i = 0; i < S->n_faults; i++) {
    uint32_t g = S->faults[i].group;
    if (g < 64 && (mask >> g & 1)) continue;
    S->faults[k++] = S->faults[i];
  }
  S->n_faults = k;
  for (uint32_t g = 0; g < S->n_groups && g < 64; g++) S->groups_dropped += (uint32_t)(mask >> g & 1);
}

static void draw(void) {
  S->faults_drawn = 1;
  S->level = (uint32_t)detsim__opt.level;
  if (S->level < 2 || S->n_hosts < 2 || detsim__world_solo) return;
  unsigned on;
  CHECK_EQ(detsim__faults_mask(detsim__opt.faults, &on), 0); /* validated with the options */
  uint64_t horizon = detsim__opt.fault_horizon_ms * 1000000ull;
  if (horizon == 0) horizon = 1;
  /* The swarm: each kind is on for some seeds only. */
  if (on & DETSIM_FAULTS_PARTITION) draw_partitions(horizon);
  if (on & DETSIM_FAULTS_PAUSE) draw_pauses(horizon);
  if (on & DETSIM_FAULTS_CRASH) draw_crashes(horizon);
  if (on & DETSIM_FAULTS_RESET) draw_resets(horizon);
  if (on & DETSIM_FAULTS_CLOG) draw_clogs(horizon);
  if (on & DETSIM_FAULTS_SKEW) draw_skews();
  if (on & DETSIM_FAULTS_SIGTERM) draw_terms(horizon);
  if (on & DETSIM_FAULTS_UDP) draw_udp(horizon);
  if (on & DETSIM_FAULTS_SHORT) draw_short(horizon);
  if (on & DETSIM_FAULTS_STEP) draw_steps(horizon);
  if (S->level >= 3) {
    if (on & DETSIM_FAULTS_EIO) draw_disk(horizon, DETSIM_FAULT_EIO, "eio", 5000, 200000);
    if (on & DETSIM_FAULTS_ENOSPC) draw_disk(horizon, DETSIM_FAULT_ENOSPC, "enospc", 5000, 200000);
    if (on & DETSIM_FAULTS_SLOW) draw_disk(horizon, DETSIM_FAULT_SLOW, "slow", 10000, 300000);
    if (on & DETSIM_FAULTS_CORRUPT) draw_disk(horizon, DETSIM_FAULT_CORRUPT, "corrupt", 1000, 50000);
    if (on & DETSIM_FAULTS_MISDIRECTED) draw_disk(horizon, DETSIM_FAULT_MISDIRECTED, "misdirected", 1000, 50000);
    if (on & DETSIM_FAULTS_EDQUOT) draw_disk(horizon, DETSIM_FAULT_EDQUOT, "edquot", 5000, 200000);
  }
  drop_groups(detsim__opt.fault_drop);
  for (unsigned i = 0; i < S->n_faults; i++)
    if (S->faults[i].until > S->healed_at) S->healed_at = S->faults[i].until;
}

static uint32_t node_state(unsigned node) { return __atomic_load_n(&S->nodes[node].state, __ATOMIC_ACQUIRE); }

/* Whether the fault still applies (a crash of a node that exited does not;
 * a reset needs a connection), before it takes effect. */
static bool applies(const struct detsim_world_fault *f) {
  switch (f->kind) {
  case DETSIM_FAULT_CRASH:
  case DETSIM_FAULT_TERM: return node_state(f->node) == DETSIM_NODE_READY;
  /* A node the world's SIGTERM stopped restarts as a crashed one does. */
  case DETSIM_FAULT_RESTART:
    return node_state(f->node) == DETSIM_NODE_DOWN ||
           (node_state(f->node) == DETSIM_NODE_EXITED && S->nodes[f->node].term_sent);
  default: return true;
  }
}

/* The fault's value in the history: its kind, its node, and the detail
 * that tells two faults of that kind apart (a crash's dead host, a clog's
 * destination). */
static uint32_t fault_value(const struct detsim_world_fault *f) {
  uint32_t detail;
  switch (f->kind) {
  case DETSIM_FAULT_CLOG: detail = (uint32_t)f->arg; break;
  case DETSIM_FAULT_SKEW: detail = 0; break;
  case DETSIM_FAULT_STEP: detail = (int64_t)f->arg > 0; break;
  default: detail = (uint32_t)(f->arg & 1); break;
  }
  return f->kind | f->node << 8 | detail << 16;
}

/* The link a -> b stalls until `until`; a partition's also drops UDP. */
static void stall(unsigned a, unsigned b, uint64_t until, bool drops) {
  CHECK_NE(a, b);
  if (S->cut_until[a][b] < until) S->cut_until[a][b] = until;
  if (drops && S->drop_until[a][b] < until) S->drop_until[a][b] = until;
}

static void skew(const struct detsim_world_fault *f) {
  CHECK_EQ(f->at, 0); /* before the node's first clock read */
  struct detsim_node_clock *c = &S->nodes[f->node].clock;
  c->realtime_offset_ns = (int64_t)f->arg;
  c->drift_ppb = f->drift_ppb;
}

static void apply(const struct detsim_world_fault *f) {
  if (!applies(f)) return;
  if (f->kind == DETSIM_FAULT_RESET && !net_reset_connection(f->arg)) return;
  /* A storage fault kind counts what it did to calls (runtime/disk/), not
   * its window. */
  if (f->kind < DETSIM_FAULT_EIO || f->kind > DETSIM_FAULT_EDQUOT) S->fault_counts[f->kind]++;
  /* The event first: a crash of this very node does not return. */
  detsim__event(DETSIM_EV_fault, detsim__self(), NULL, 0, fault_value(f));
  switch (f->kind) {
  case DETSIM_FAULT_PARTITION:
  case DETSIM_FAULT_ONE_WAY:
    for (unsigned a = 0; a < S->n_hosts; a++)
      for (unsigned b = 0; b < S->n_hosts; b++) {
        if (!(f->side_a >> a & 1) || (f->side_a >> b & 1)) continue;
        stall(a, b, f->until, true);
        if (f->kind == DETSIM_FAULT_PARTITION) stall(b, a, f->until, true);
      }
    break;
  case DETSIM_FAULT_CLOG:
    stall(f->node, (unsigned)f->arg, f->until, false);
    break;
  case DETSIM_FAULT_SKEW:
    skew(f);
    break;
  case DETSIM_FAULT_STEP:
    S->nodes[f->node].clock.step_ns += (int64_t)f->arg;
    /* Its waits and timers for a realtime time move now (that node's
     * process, when the world comes to it, at once). */
    if (f->node == detsim__node_index) detsim__sched_clock_check();
    else detsim__world_post(f->node, detsim__now_ns());
    break;
  case DETSIM_FAULT_PAUSE:
    if (S->nodes[f->node].paused_until < f->until) S->nodes[f->node].paused_until = f->until;
    break;
  case DETSIM_FAULT_CRASH:
    detsim__world_crash(f->node, f->arg != 0);
    break;
  case DETSIM_FAULT_RESTART:
    detsim__world_restart(f->node);
    break;
  case DETSIM_FAULT_RESET:
    detsim__world_touch();
    break;
  case DETSIM_FAULT_TERM:
    detsim__world_term(f->node);
    break;
  case DETSIM_FAULT_UDP:
    S->udp_until = f->until;
    break;
  case DETSIM_FAULT_SHORT:
    S->short_until = f->until;
    break;
  case DETSIM_FAULT_EIO:
  case DETSIM_FAULT_ENOSPC:
  case DETSIM_FAULT_SLOW:
  case DETSIM_FAULT_CORRUPT:
  case DETSIM_FAULT_MISDIRECTED:
  case DETSIM_FAULT_EDQUOT: {
    struct detsim_world_node *n = &S->nodes[f->node];
    n->disk_until[f->kind - DETSIM_FAULT_EIO] = f->until;
    n->disk_ppm[f->kind - DETSIM_FAULT_EIO] = (uint32_t)f->arg;
    break;
  }
  default:
    break;
  }
}

void detsim__world_faults_due(void) {
  if (!S->faults_drawn) draw();
  /* A node on its way out (crashed, or exited), or a node handing the
   * world over, leaves what is due to the next node. */
  uint32_t me = node_state(detsim__node_index);
  if (detsim__world_faults_held || me == DETSIM_NODE_DOWN || me == DETSIM_NODE_EXITED) return;
  uint64_t now = detsim__now_ns();
  while (S->next_fault < S->n_faults && S->faults[S->next_fault].at <= now) apply(&S->faults[S->next_fault++]);
}

uint64_t detsim__world_next_fault(void) {
  if (!S->faults_drawn) draw();
  return S->next_fault < S->n_faults ? S->faults[S->next_fault].at : DETSIM_NO_DEADLINE;
}

/* ---- the liveness phase ----
 * Faults end by healed_at.  From then on a healthy system finishes its work
 * or says it progresses; one that only spins (timeouts, retries, elections
 * that never settle) is the liveness bug that safety checks cannot see. */

void detsim__world_progress(void) {
  S->last_progress_ns = detsim__now_ns();
  S->progress_calls++;
}

/* Skew and steps are no outage: a world whose only faults are clocks has
 * no liveness phase, as a world without faults has none. */
static bool any_outage(void) {
  for (unsigned i = 0; i < S->n_faults; i++)
    if (S->faults[i].kind != DETSIM_FAULT_SKEW && S->faults[i].kind != DETSIM_FAULT_STEP) return true;
  return false;
}

uint64_t detsim__world_liveness_deadline(void) {
  if (!S->faults_drawn) draw();
  if (detsim__opt.liveness_s == 0 || !any_outage()) return DETSIM_NO_DEADLINE;
  uint64_t from = S->healed_at > S->last_progress_ns ? S->healed_at : S->last_progress_ns;
  return from + detsim__opt.liveness_s * 1000000000ull;
}

_Noreturn void detsim__world_liveness_failed(void) {
  uint64_t healed = S->healed_at, last = S->last_progress_ns;
  char last_text[64] = "never";
  if (S->progress_calls || last)
    snprintf(last_text, sizeof last_text, "at %" PRIu64 ".%06" PRIu64 " s", (uint64_t)(last / 1000000000u),
             (uint64_t)(last % 1000000000u / 1000));
  detsim__msg("liveness: the world made no progress for %" PRIu64 " virtual s after its faults healed at %" PRIu64
              ".%06" PRIu64 " s (progress is detsim_progress() or a client's exit; the last was %s; "
              "DETSIM_OPTIONS=liveness_s=N sets the bound)",
              (uint64_t)detsim__opt.liveness_s, (uint64_t)(healed / 1000000000u), (uint64_t)(healed % 1000000000u / 1000),
              last_text);
  char extra[96];
  snprintf(extra, sizeof extra, "liveness_s=%" PRIu64, (uint64_t)detsim__opt.liveness_s);
  detsim__finish(DETSIM_CLASS_liveness, 0, extra);
}
