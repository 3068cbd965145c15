/* Runtime invariants (sanitizer-style CHECKs), always on.
 *
 * A failed check is a bug in detsim, not in the program under test: it names
 * the invariant, both values of a comparison, the seed and the event number,
 * and ends the run as inconclusive (never as a verdict on the program).
 */
#ifndef DETSIM_CHECK_H
#define DETSIM_CHECK_H

#include <stdint.h>

_Noreturn void detsim__check_failed(const char *file, int line, const char *cond,
                                    uint64_t a, uint64_t b);

#define CHECK(cond) \
  do { if (__builtin_expect(!(cond), 0)) detsim__check_failed(__FILE__, __LINE__, #cond, 0, 0); } while (0)
#define CHECK_OP_(a, op, b) \
  do { \
    uint64_t detsim_a_ = (uint64_t)(a), detsim_b_ = (uint64_t)(b); \
    if (__builtin_expect(!(detsim_a_ op detsim_b_), 0)) \
      detsim__check_failed(__FILE__, __LINE__, #a " " #op " " #b, detsim_a_, detsim_b_); \
  } while (0)
#define CHECK_EQ(a, b) CHECK_OP_(a, ==, b)
#define CHECK_NE(a, b) CHECK_OP_(a, !=, b)
#define CHECK_LT(a, b) CHECK_OP_(a, <, b)
#define CHECK_LE(a, b) CHECK_OP_(a, <=, b)
#define CHECK_GE(a, b) CHECK_OP_(a, >=, b)

#endif
