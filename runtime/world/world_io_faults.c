/* Faults that act on each datagram or call while their window is open
 * (world_faults.c draws the windows and the rates): UDP datagrams between
 * nodes lost, duplicated or reordered; TCP reads that return part of what
 * has arrived, non-blocking writes that take part of what they are given.
 *
 * Each node draws these from a stream of its own (per incarnation), in the
 * order its threads make the calls, so a seed replays; in a world's choice
 * mode from the world's choices while they last, so the fuzzer's input
 * decides which datagram is lost and which read comes up short.  Only
 * traffic between two nodes is touched: a host's loopback loses nothing.
 */
#include "core/core.h"
#include "time/time.h"
#include "sched/sched.h"
#include "world/world.h"
#include "fuzz/fuzz.h"

#define S detsim__ws
#define PPM 1000000u

static struct detsim_rng io_rng;
static bool io_rng_ready;

static struct detsim_rng *io_stream(void) {
  if (!io_rng_ready) {
    char label[96];
    detsim__world_label(label, sizeof label, "faults/io");
    detsim__rng_init(&io_rng, detsim__seed_child(detsim__seed(), label));
    io_rng_ready = true;
  }
  return &io_rng;
}

static uint64_t io_below(uint64_t n) { return detsim__choices_or_below(io_stream(), n); }

static bool chance(uint32_t ppm) {
  /* In choice mode a rate of zero takes no byte of the input (its stream
   * draw stays, so a seed's history is as it was). */
  if (__builtin_expect(detsim__choices_on, 0) && ppm == 0) return false;
  return io_below(PPM) < ppm;
}

unsigned detsim__world_udp_fate(unsigned src, unsigned dst, uint64_t *extra_ns) {
  *extra_ns = 0;
  if (!detsim__in_world || src == dst || detsim__now_ns() >= S->udp_until) return 0;
  if (chance(S->udp_loss_ppm)) {
    S->udp_lost++;
    return DETSIM_UDP_LOST;
  }
  unsigned fate = 0;
  if (chance(S->udp_dup_ppm)) {
    S->udp_duplicated++;
    fate |= DETSIM_UDP_DUPLICATED;
  }
  if (chance(S->udp_reorder_ppm)) {
    S->udp_reordered++;
    fate |= DETSIM_UDP_REORDERED;
    *extra_ns = 1 + io_below(S->udp_reorder_max_ns);
  }
  return fate;
}

uint64_t detsim__world_short_io(unsigned src, unsigned dst, uint64_t n, bool write) {
  if (!detsim__in_world || src == dst || n < 2 || detsim__now_ns() >= S->short_until) return n;
  if (!chance(S->short_ppm)) return n;
  if (write) S->short_writes++;
  else S->short_reads++;
  return 1 + io_below(n - 1);
}
