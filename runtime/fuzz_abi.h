/* The fuzz mode's contract between a run and simfuzz (tools/simfuzz): the
 * choices file's limits and encoding, and the layout of the coverage file
 * a run writes at its end (DETSIM_OPTIONS=fuzz_out=FILE).  Read by the
 * runtime and by simfuzz; docs/fuzzing.md describes both for people.
 *
 * Choices (DETSIM_OPTIONS=choices=FILE): the file's bytes, in order, are the
 * run's scheduling decisions.  A decision among n > 1 options takes the next
 * byte modulo n (a pick among the runnable threads when the running one
 * blocks, exits or yields; which waiter a wake-one wakes); the number of
 * yield points until the next preemption takes one byte through
 * detsim_fuzz_gap() (at a preemption the thread to run is the next
 * decision among the others).  A decision with one option takes no byte.
 * When the bytes run out, the run goes on drawing from the seed's
 * scheduler stream, exactly as a random walk of that seed would: every
 * input is a valid run, and an empty file is the seed's own run.
 *
 * In a world the launcher loads the file into the world's header
 * (world_abi.h) and every node takes its bytes in the order of the one
 * history: the nodes' scheduling decisions as above (a choice spans this
 * node's runnable threads and the other nodes that may run), one byte per
 * property of each new connection's link (net_fd.c), and at level
 * 2 and up the fault draws (world_faults.c): one byte b per coin or
 * fraction ((b + 0.5) / 256), per count or node (modulo their number), per
 * length (log-uniform in its range), per 8 nodes of a partition's side;
 * two bytes, big-endian, per time in the fault horizon.  Each node writes
 * a coverage file of its own (<fuzz_out>.<node>.<incarnation>), and the
 * launcher merges them into one of the layout below: one region per
 * distinct program of the scenario, summed over its nodes.
 */
#ifndef DETSIM_FUZZ_ABI_H
#define DETSIM_FUZZ_ABI_H

#include <stdint.h>

/* A choices file larger than this is refused (limit choices_bytes). */
#define DETSIM_CHOICES_BYTES_MAX (1u << 20)

/* Yield points until the next preemption, from one byte: 1..192 one by
 * one, then doubling every 8 values up to 192 << 7 (24576), so both dense
 * and rare preemptions are one byte away, and no byte lets one spinning
 * thread run for millions of events (the random walk's rarest rate, 0.001,
 * is a gap of 1000 on average). */
static inline uint64_t detsim_fuzz_gap(uint8_t b) {
  return b < 192 ? (uint64_t)b + 1 : (uint64_t)192 << ((b - 192) >> 3);
}

/* The coverage file: a header, then `counters` bytes of the program's
 * inline 8-bit counters (every module's, in the order they registered),
 * then `sched_features` bytes of scheduling features (hashed pairs of the
 * yield sites of the thread that gives the CPU up and the one that takes
 * it, saturating counts), so that new interleavings count as new coverage. */
#define DETSIM_FUZZ_MAGIC 0x5a465344u /* "DSFZ" */
#define DETSIM_FUZZ_VERSION 1u
/* Program counters written at most (limit fuzz_counters); a program with
 * more is refused by simfuzz, naming the limit. */
#define DETSIM_FUZZ_COUNTERS_MAX (1u << 24)
/* Separately instrumented modules (the program and its shared libraries). */
#define DETSIM_FUZZ_MODULES_MAX 64
/* Scheduling feature counters (a power of two). */
#define DETSIM_FUZZ_SCHED_FEATURES 4096u

struct detsim_fuzz_header {
  uint32_t magic, version;
  uint32_t counters;       /* program counters that follow */
  uint32_t counters_total; /* the program's counters (more than `counters`: over the limit) */
  uint32_t modules_dropped; /* modules past DETSIM_FUZZ_MODULES_MAX, not counted */
  uint32_t sched_features; /* DETSIM_FUZZ_SCHED_FEATURES */
  uint64_t choices_used;   /* bytes of the choices file the run took */
};

_Static_assert((DETSIM_FUZZ_SCHED_FEATURES & (DETSIM_FUZZ_SCHED_FEATURES - 1)) == 0, "a power of two");

#endif
