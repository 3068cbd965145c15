/* Faults of a world, by level (DESIGN.md's table; world_abi.h).
 *
 * At level 2 and up each seed draws its own swarm once, at the world's first
 * use: which fault kinds are on, how many, when, for how long, between which
 * nodes.  The schedule lives in the world's header; whichever node holds the
 * world when a fault's time comes applies it, so faults take their place in
 * the one history like any event.  Every fault heals: partitions end, pauses
 * end.  What is modeled so far:
 *  - partitions, symmetric or one-way, between two sets of nodes: a link
 *    stalls (TCP bytes, handshakes, FIN and RST wait for the heal; nothing is
 *    lost or reordered) and UDP datagrams are lost;
 *  - pauses: a node is not scheduled until the pause ends.
 * Crashes, restarts, clock skew and SIGTERM are later work (docs/worlds.md).
 */
#include <inttypes.h>
#include <stdio.h>

#include "check.h"
#include "clock.h"
#include "options.h"
#include "prng.h"
#include "sched_internal.h"
#include "trace.h"
#include "world.h"

#define S detsim__ws
/* Partitions last 20 ms to 2 s, pauses 10 ms to 1 s (log-uniform). */
#define PARTITION_MIN_NS 20000000ull
#define PARTITION_MAX_NS 2000000000ull
#define PAUSE_MIN_NS 10000000ull
#define PAUSE_MAX_NS 1000000000ull

uint64_t detsim__world_link_open(unsigned src, unsigned dst, uint64_t t) {
  if (!detsim__in_world || src == dst) return t;
  uint64_t until = S->cut_until[src][dst];
  return t < until ? until : t;
}

bool detsim__world_paused(unsigned node) { return S->nodes[node].paused_until > detsim__now_ns(); }

static uint64_t log_uniform(struct detsim_rng *r, uint64_t lo, uint64_t hi) {
  return (uint64_t)((double)lo * __builtin_exp(detsim__rng_unit(r) * __builtin_log((double)hi / (double)lo)));
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

static void draw(void) {
  S->faults_drawn = 1;
  S->level = (uint32_t)detsim__opt.level;
  if (S->level < 2 || S->n_nodes < 2) return;
  struct detsim_rng r;
  detsim__rng_init(&r, detsim__seed_child(S->seed, "faults"));
  uint64_t horizon = detsim__opt.fault_horizon_ms * 1000000ull;
  if (horizon == 0) horizon = 1;
  unsigned n = S->n_nodes;
  uint64_t all = n >= 64 ? ~0ull : (1ull << n) - 1;
  /* The swarm: each kind is on for some seeds only. */
  if (detsim__rng_unit(&r) < 0.75) {
    unsigned k = 1 + (unsigned)detsim__rng_below(&r, 3);
    for (unsigned i = 0; i < k; i++) {
      uint64_t side = 0;
      while (side == 0 || side == all) side = detsim__rng_next(&r) & all;
      struct detsim_world_fault f = { 0 };
      f.at = detsim__rng_below(&r, horizon);
      f.until = f.at + log_uniform(&r, PARTITION_MIN_NS, PARTITION_MAX_NS);
      f.kind = detsim__rng_unit(&r) < 0.3 ? DETSIM_FAULT_ONE_WAY : DETSIM_FAULT_PARTITION;
      f.side_a = side;
      add(f);
      struct detsim_world_fault h = f;
      h.at = f.until;
      h.kind = DETSIM_FAULT_HEAL;
      add(h);
    }
  }
  if (detsim__rng_unit(&r) < 0.5) {
    unsigned k = 1 + (unsigned)detsim__rng_below(&r, 3);
    for (unsigned i = 0; i < k; i++) {
      struct detsim_world_fault f = { 0 };
      f.at = detsim__rng_below(&r, horizon);
      f.until = f.at + log_uniform(&r, PAUSE_MIN_NS, PAUSE_MAX_NS);
      f.kind = DETSIM_FAULT_PAUSE;
      f.node = (uint32_t)detsim__rng_below(&r, n);
      add(f);
    }
  }
  for (unsigned i = 0; i < S->n_faults; i++)
    if (S->faults[i].until > S->healed_at) S->healed_at = S->faults[i].until;
}

static void apply(const struct detsim_world_fault *f) {
  switch (f->kind) {
  case DETSIM_FAULT_PARTITION:
  case DETSIM_FAULT_ONE_WAY:
    for (unsigned a = 0; a < S->n_nodes; a++)
      for (unsigned b = 0; b < S->n_nodes; b++) {
        if (!(f->side_a >> a & 1) || (f->side_a >> b & 1)) continue;
        if (S->cut_until[a][b] < f->until) S->cut_until[a][b] = f->until;
        if (f->kind == DETSIM_FAULT_PARTITION && S->cut_until[b][a] < f->until) S->cut_until[b][a] = f->until;
      }
    break;
  case DETSIM_FAULT_PAUSE:
    if (S->nodes[f->node].paused_until < f->until) S->nodes[f->node].paused_until = f->until;
    break;
  default:
    break;
  }
  S->fault_counts[f->kind]++;
  detsim__event(DETSIM_EV_fault, detsim__self(), NULL, 0, f->kind | f->node << 8);
}

void detsim__world_faults_due(void) {
  if (!S->faults_drawn) draw();
  uint64_t now = detsim__now_ns();
  while (S->next_fault < S->n_faults && S->faults[S->next_fault].at <= now) apply(&S->faults[S->next_fault++]);
}

uint64_t detsim__world_next_fault(void) {
  if (!S->faults_drawn) draw();
  return S->next_fault < S->n_faults ? S->faults[S->next_fault].at : DETSIM_NO_DEADLINE;
}
