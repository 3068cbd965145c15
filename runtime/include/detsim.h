/* detsim.h: what a program may say to the simulation.
 *
 * Everything here compiles to nothing, or to plain C, in a build without the
 * detsim plugin (no __DETSIM__), so the same source builds a release binary
 * that carries no trace of detsim.
 *
 *   DETSIM_CHECK(cond, "name")  an invariant: counted in the report; a false
 *                               one ends the run as `correctness`.
 *   DETSIM_VERIFY(cond)         an expensive check compiled only into verify
 *                               builds (detsim-cc --verify); it never changes
 *                               the run's history.
 *   detsim_progress()           the program made progress (liveness).
 *   detsim_random()             a seeded 64-bit draw for workloads.
 *   detsim_active()             1 in a simulation run.
 */
#ifndef DETSIM_H
#define DETSIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__DETSIM__)

void detsim_check_failed(const char *name, const char *cond, const char *file, int line);
void detsim_check_passed(const char *name);
void detsim_progress(void);
uint64_t detsim_random(void);
int detsim_active(void);
void __detsim_verify_begin(void);
void __detsim_verify_end(void);

#define DETSIM_CHECK(cond, name) \
  do { \
    if (cond) detsim_check_passed(name); \
    else detsim_check_failed(name, #cond, __FILE__, __LINE__); \
  } while (0)

#if defined(__DETSIM_VERIFY__)
void __detsim_verify_end_check(int ok, const char *cond, const char *file, int line);
/* One expression, all of it inside the begin/end window: the work it does
 * is taken back, so the code around it counts as in a build without it. */
#define DETSIM_VERIFY(cond) \
  __detsim_verify_end_check((__detsim_verify_begin(), !!(cond)), #cond, __FILE__, __LINE__)
#else
#define DETSIM_VERIFY(cond) ((void)0)
#endif

#else /* a release build: no detsim */

#include <stdlib.h>
#define DETSIM_CHECK(cond, name) ((void)sizeof(!(cond)))
#define DETSIM_VERIFY(cond) ((void)0)
static inline void detsim_progress(void) {}
static inline int detsim_active(void) { return 0; }
static inline uint64_t detsim_random(void) {
  return ((uint64_t)(unsigned)rand() << 32) ^ (uint64_t)(unsigned)rand();
}

#endif

#ifdef __cplusplus
}
#endif
#endif
