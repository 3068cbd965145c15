/* Fuzz mode's coverage (fuzz_abi.h): the program's inline 8-bit counters
 * (detsim-cc --fuzz) and the scheduling features, written to fuzz_out at
 * the run's end for simfuzz. */
#ifndef DETSIM_FUZZ_COV_H
#define DETSIM_FUZZ_COV_H

#include <stdbool.h>
#include <stdint.h>

/* fuzz_out is set: count scheduling features. */
extern bool detsim__fuzz_on;
/* A switch from the thread last at yield site `from` to the one last at
 * `to` (program counters). */
void detsim__fuzz_switch(uintptr_t from, uintptr_t to);
/* Writes fuzz_out (once; signal-safe: open/write only). */
void detsim__fuzz_write_out(void);

#endif
