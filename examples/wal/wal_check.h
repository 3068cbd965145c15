/* wal_check: the example's checks and sometimes-points, the same source
 * natively and under the simulation.
 *
 * In a simulation build these are detsim's DETSIM_CHECK / DETSIM_SOMETIMES
 * (a failed check ends the run as a correctness failure naming it; the
 * report lists the points a sweep never reached).  Natively a failed check
 * prints its name and aborts, and the points cost nothing.
 */
#ifndef WAL_CHECK_H
#define WAL_CHECK_H

#ifdef __DETSIM__
#include <detsim.h>
#define WAL_CHECK(cond, name) DETSIM_CHECK(cond, name)
#define WAL_SOMETIMES(cond, name) DETSIM_SOMETIMES(cond, name)
#else
#include <stdio.h>
#include <stdlib.h>
#define WAL_SOMETIMES(cond, name) ((void)sizeof(!(cond)))
#define WAL_CHECK(cond, name) \
  do { \
    if (!(cond)) { \
      fprintf(stderr, "wal: check '%s' failed: %s\n", name, #cond); \
      abort(); \
    } \
  } while (0)
static inline void detsim_progress(void) {}
#endif

#endif
