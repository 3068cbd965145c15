/* DETSIM_SEED and DETSIM_OPTIONS: parsed once, before the program runs. */
#ifndef DETSIM_OPTIONS_H
#define DETSIM_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "limits.h"

#define DETSIM_OPT_BOOL bool
#define DETSIM_OPT_U64 uint64_t
#define DETSIM_OPT_F64 double
#define DETSIM_OPT_STR const char *

struct detsim_options {
#define DETSIM_OPTION(type, name, def, desc) DETSIM_OPT_##type name;
#include "options.inc"
#undef DETSIM_OPTION
};

extern struct detsim_options detsim__opt;

/* Parses `text` (key=value:key=value) over the defaults.  On an error writes
 * one line naming the key into err and returns -1. */
int detsim__options_parse(const char *text, char *err, unsigned errlen);
/* Parses a decimal u64 seed; -1 with a message in err on bad input. */
int detsim__seed_parse(const char *text, uint64_t *seed, char *err, unsigned errlen);
void detsim__options_help(int fd);

/* The `faults` option's kinds as bits (1 << i for partition, pause, crash,
 * reset, skew, clog in that order); -1 for a name it does not know. */
enum {
#define DETSIM_FAULT_OPTION(NAME, name) DETSIM_FAULTS_BIT_##NAME,
#include "fault_options.inc"
#undef DETSIM_FAULT_OPTION
  DETSIM_FAULTS_OPTION_COUNT
};
#define DETSIM_FAULT_OPTION(NAME, name) static const unsigned DETSIM_FAULTS_##NAME = 1u << DETSIM_FAULTS_BIT_##NAME;
#include "fault_options.inc"
#undef DETSIM_FAULT_OPTION
int detsim__faults_mask(const char *list, unsigned *mask);

#endif
