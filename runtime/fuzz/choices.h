/* Choice mode (DETSIM_OPTIONS=choices=FILE): the scheduler's decisions
 * taken from a file's bytes, then from the seed (fuzz_abi.h has the
 * encoding).  This is how a fuzzer's input drives a run. */
#ifndef DETSIM_CHOICES_H
#define DETSIM_CHOICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Loads the file; on a bad one writes the reason to err and returns -1. */
int detsim__choices_load(const char *path, char *err, size_t errlen);
/* Choice mode is on (a file was loaded, perhaps empty). */
extern bool detsim__choices_on;
/* The next byte, if any is left. */
bool detsim__choices_next(uint8_t *byte);
/* Bytes taken so far, and the file's length. */
uint64_t detsim__choices_used(void);
uint64_t detsim__choices_len(void);

#endif
