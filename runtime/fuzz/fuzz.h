/* fuzz/: the one header of the runtime's fuzz part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_FUZZ_PART_H
#define DETSIM_FUZZ_PART_H

/* Choice mode (DETSIM_OPTIONS=choices=FILE): the scheduler's decisions
 * taken from a file's bytes, then from the seed (fuzz_abi.h has the
 * encoding).  This is how a fuzzer's input drives a run. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Loads the file; on a bad one writes the reason to err and returns -1. */
int detsim__choices_load(const char *path, char *err, size_t errlen);
/* A world's choices (world_abi.h): the launcher loaded the file into the
 * shared header; every node takes the next byte at shared_pos there. */
void detsim__choices_share(const uint8_t *bytes, uint64_t len, uint64_t *shared_pos);
/* A run's own world (its first fork or exec, world_proc.c): the loaded
 * bytes move to the world's header (bytes, the next one's index), so that
 * every process of the run takes them in the order of the one history. */
void detsim__choices_move(uint8_t *shared_bytes, uint64_t *shared_pos);
/* Choice mode is on (a file was loaded, perhaps empty). */
extern bool detsim__choices_on;
/* The next byte, if any is left. */
bool detsim__choices_next(uint8_t *byte);
/* A number in [0, n) from the choices while they last: one byte modulo n
 * for n <= 256, two (big-endian, scaled to n; a missing second one is
 * 0x80, the middle) for more.  False when choice mode is off, the bytes
 * ran out or n <= 1 (a draw with one option takes no byte): the caller
 * draws from its own stream, as without choices. */
bool detsim__choices_below(uint64_t n, uint64_t *out);
/* In [0, n): the choices while they last, else rng's draw (a fault's or
 * the network's own stream), as a draw is made without choices. */
struct detsim_rng;
uint64_t detsim__choices_or_below(struct detsim_rng *rng, uint64_t n);
/* Bytes taken so far, and the file's length. */
uint64_t detsim__choices_used(void);
uint64_t detsim__choices_len(void);

/* Fuzz mode's coverage (fuzz_abi.h): the program's inline 8-bit counters
 * (detsim-cc --fuzz) and the scheduling features, written to fuzz_out at
 * the run's end for simfuzz. */

#include <stdbool.h>
#include <stdint.h>

/* fuzz_out is set: count scheduling features. */
extern bool detsim__fuzz_on;
/* A switch from the thread last at yield site `from` to the one last at
 * `to` (program counters). */
void detsim__fuzz_switch(uintptr_t from, uintptr_t to);
/* Writes fuzz_out (once; signal-safe: open/write only); in a world each
 * node process writes its part, <fuzz_out>.<node>.<incarnation>, which the
 * launcher merges into fuzz_out. */
void detsim__fuzz_write_out(void);
/* A run's own world (its first fork or exec): the shared sum of its
 * processes' coverage is made; a process that ends or execs adds its
 * counters to it (when it runs the program the first process ran: the
 * same number of counters), and fuzz_out holds the sum with the writer's. */
void detsim__fuzz_world_begin(void);
void detsim__fuzz_world_give(void);
/* The program's counters registered so far (capped at the limit). */
uint32_t detsim__fuzz_counters(void);

#endif /* DETSIM_FUZZ_PART_H */
