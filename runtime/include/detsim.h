/* detsim.h: what a program may say to the simulation.
 *
 * Everything here compiles to nothing, or to plain C, in a build without the
 * detsim plugin (no __DETSIM__), so the same source builds a release binary
 * that carries no trace of detsim.
 *
 *   DETSIM_CHECK(cond, "name")  an invariant: counted in the report; a false
 *                               one ends the run as `correctness`.
 *   DETSIM_ALWAYS(cond, "name") the same as DETSIM_CHECK.
 *   DETSIM_SOMETIMES(cond, "name")  a situation the workload should reach:
 *                               true in at least one run of a sweep.
 *   DETSIM_REACHABLE("name")    code the workload should reach in a sweep.
 *   DETSIM_UNREACHABLE("name")  code no run may reach: reaching it ends the
 *                               run as `correctness` (unreachable=name).
 *                               The three are coverage points: every one is
 *                               known to the run even when never reached
 *                               (a descriptor in section detsim_points), and
 *                               simrun's WORKLOAD COVERAGE lists each with
 *                               its count; their names are string literals.
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
#define DETSIM_ALWAYS(cond, name) DETSIM_CHECK(cond, name)

/* A coverage point: one descriptor per use, in section detsim_points of
 * the module (executable or shared library) that holds it, so the run
 * knows every point, reached or not.  The runtime counts in it. */
enum { DETSIM_POINT_SOMETIMES = 1, DETSIM_POINT_REACHABLE = 2, DETSIM_POINT_UNREACHABLE = 3 };
struct detsim_point {
  uint32_t kind; /* DETSIM_POINT_* */
  uint32_t line;
  const char *name;
  const char *file;
  uint64_t hits;  /* times reached (SOMETIMES: with the condition true) */
  uint64_t evals; /* times reached */
};
void detsim_point_hit(struct detsim_point *p, int cond);
void detsim_points_register(struct detsim_point *start, struct detsim_point *stop);

#define DETSIM_POINT_(kind, name, cond) \
  do { \
    static struct detsim_point detsim_point_ __attribute__((section("detsim_points"), used, aligned(8))) = { \
      kind, __LINE__, name, __FILE__, 0, 0 }; \
    detsim_point_hit(&detsim_point_, (cond) ? 1 : 0); \
  } while (0)
#define DETSIM_SOMETIMES(cond, name) DETSIM_POINT_(DETSIM_POINT_SOMETIMES, name, cond)
#define DETSIM_REACHABLE(name) DETSIM_POINT_(DETSIM_POINT_REACHABLE, name, 1)
#define DETSIM_UNREACHABLE(name) DETSIM_POINT_(DETSIM_POINT_UNREACHABLE, name, 1)

#if !defined(DETSIM_RUNTIME_INTERNAL_)
/* Every module that includes this header tells the runtime where its
 * points are (the linker's bounds of the section; null when it has none). */
extern struct detsim_point __start_detsim_points[] __attribute__((weak, visibility("hidden")));
extern struct detsim_point __stop_detsim_points[] __attribute__((weak, visibility("hidden")));
__attribute__((constructor, used)) static void detsim_register_points_(void) {
  if (__start_detsim_points != __stop_detsim_points) detsim_points_register(__start_detsim_points, __stop_detsim_points);
}
#endif

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
#define DETSIM_ALWAYS(cond, name) ((void)sizeof(!(cond)))
#define DETSIM_SOMETIMES(cond, name) ((void)sizeof(!(cond)))
#define DETSIM_REACHABLE(name) ((void)0)
#define DETSIM_UNREACHABLE(name) ((void)0)
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
