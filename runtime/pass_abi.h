/* The calls the LLVM pass inserts into instrumented code.
 *
 * This is the ABI between a simulation build and the runtime: the pass
 * (passes/) emits exactly these declarations, the runtime defines them.
 * Functions classed REWRITE in intercept_table.def are called as
 * `__detsim_<name>` with the original signature; everything else the pass
 * emits is declared here.  Change it only together with the pass and bump
 * DETSIM_PASS_ABI_VERSION.
 */
#ifndef DETSIM_PASS_ABI_H
#define DETSIM_PASS_ABI_H

#include <stdint.h>

#define DETSIM_PASS_ABI_VERSION 2

/* What kind of memory access a yield point stands in front of.  The access
 * itself stays a native instruction: only one simulated thread runs at a
 * time, so an instruction between two yield points is atomic with respect to
 * every other thread.  The yield point is where another thread may run. */
enum detsim_access_kind {
  DETSIM_ACCESS_ATOMIC_LOAD = 1,
  DETSIM_ACCESS_ATOMIC_STORE = 2,
  DETSIM_ACCESS_ATOMIC_RMW = 3,
  DETSIM_ACCESS_ATOMIC_CMPXCHG = 4,
  DETSIM_ACCESS_FENCE = 5,
  DETSIM_ACCESS_LIBATOMIC_CALL = 6,
  DETSIM_ACCESS_VOLATILE_LOAD = 7,
  DETSIM_ACCESS_VOLATILE_STORE = 8,
  /* Not an access: a sigsetjmp or _setjmp call, `addr` its buffer.  The
   * runtime notes the thread's simulated mask and running handlers there,
   * for a siglongjmp back to it (signal.h). */
  DETSIM_ACCESS_SETJMP = 9,
};

/* A yield point in front of a memory access; `addr` is the accessed address
 * (NULL for a fence).  The call site is taken from the return address. */
void __detsim_yield_access(void *addr, uint32_t kind);

/* Brackets around a DETSIM_VERIFY check (detsim.h): yield points inside a
 * verify check are not yield points, so a verify build takes the same history
 * as the simulation build without checks. */
void __detsim_verify_begin(void);
void __detsim_verify_end(void);

/* The instructions instrumented code ran so far (passes/work.c adds to it
 * before each call and at the end of each block, counting the IR as clang
 * generated it); the runtime turns what was added between two events into
 * virtual time (work_ps_per_instr). */
#define DETSIM_WORK_COUNTER "__detsim_work"
/* Set to 0 in the compiler's environment, the pass counts no work. */
#define DETSIM_COUNT_WORK_ENV "DETSIM_COUNT_WORK"

/* A DETSIM_VERIFY check in a verify build: begin, the condition, then this
 * with its value; the check's own work and yield points leave no trace, so
 * a verify build takes the release build's history. */
void __detsim_verify_end_check(int ok, const char *cond, const char *file, int line);

/* The named metadata the pass adds to a module it has instrumented, so that
 * loading the plugin both as -fplugin= and -fpass-plugin= instruments once. */
#define DETSIM_INSTRUMENTED_MD "detsim.instrumented"

#endif
