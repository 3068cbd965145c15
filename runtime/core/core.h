/* core/: the one header of the runtime's core part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_CORE_PART_H
#define DETSIM_CORE_PART_H

/* Runtime invariants (sanitizer-style CHECKs), always on.
 *
 * A failed check is a bug in detsim, not in the program under test: it names
 * the invariant, both values of a comparison, the seed and the event number,
 * and ends the run as inconclusive (never as a verdict on the program).
 */

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

/* DETSIM_SEED and DETSIM_OPTIONS: parsed once, before the program runs. */

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

/* Seeded randomness: the seed tree and the generator of each stream.
 *
 * Every consumer of randomness (the scheduler, the program's getrandom, the
 * clock's offset, later the network and faults) draws from its own stream,
 * whose seed is a hash of the root seed and the stream's label.  Adding a
 * consumer therefore never reshuffles the draws of the others.
 */

#include <stdint.h>

struct detsim_rng { uint64_t s[4]; };

static inline uint64_t detsim__splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* The seed of the stream `label` under `seed` (FNV-1a over the label, mixed). */
static inline uint64_t detsim__seed_child(uint64_t seed, const char *label) {
  uint64_t h = 0xcbf29ce484222325ull ^ seed;
  for (const char *p = label; *p; p++) h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
  return detsim__splitmix64(&h);
}

static inline void detsim__rng_init(struct detsim_rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) r->s[i] = detsim__splitmix64(&x);
}

static inline uint64_t detsim__rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** */
static inline uint64_t detsim__rng_next(struct detsim_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = detsim__rotl64(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
  s[2] ^= t; s[3] = detsim__rotl64(s[3], 45);
  return result;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; the tiny bias is
 * irrelevant for scheduling and it keeps a draw to one call). */
static inline uint64_t detsim__rng_below(struct detsim_rng *r, uint64_t n) {
  return (uint64_t)(((unsigned __int128)detsim__rng_next(r) * n) >> 64);
}

/* Uniform in [0, 1). */
static inline double detsim__rng_unit(struct detsim_rng *r) {
  return (double)(detsim__rng_next(r) >> 11) * 0x1.0p-53;
}

/* How a run ends: the result line, the trace file, the exit status. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum detsim_class {
#define DETSIM_CLASS(name, status, desc) DETSIM_CLASS_##name,
#include "classes.inc"
#undef DETSIM_CLASS
  DETSIM_CLASS_COUNT
};

/* Bad DETSIM_SEED / DETSIM_OPTIONS: exits before the program runs. */
#define DETSIM_EXIT_USAGE 89

const char *detsim__class_name(enum detsim_class cls);

/* Ends the run: for a failure writes the trace file and prints its tail,
 * then the result line `detsim: <class> seed=… events=… history=… …`
 * (`extra` fields appended), flushes stdio and exits with the class's status
 * (the program's `exit_status` for pass).  Safe to call from any thread, a
 * signal handler included; the first caller wins. */
_Noreturn void detsim__finish(enum detsim_class cls, int exit_status, const char *extra);

/* The calling thread must not flush stdio when it ends the run (a signal
 * handler, the watchdog, _exit). */
void detsim__report_no_flush(void);
/* Whether some thread is ending the run already. */
bool detsim__report_finishing(void);

/* The result line without exiting, for an exit already under way. */
void detsim__write_result(enum detsim_class cls, int exit_status, const char *extra);

/* Writes all n bytes to fd, again after a short write or EINTR; false on
 * an error (async-signal-safe: write alone, for the ends of runs). */
bool detsim__write_all(int fd, const void *p, size_t n);

/* Formats `fmt` into a message line on stderr prefixed with "detsim: ". */
void detsim__msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Captures the calling thread's backtrace as text lines (frames inside the
 * runtime skipped).  Returns the length written. */
int detsim__backtrace_text(char *buf, int len, int skip_runtime);

/* The trace file's path (the `trace` option, or detsim-<seed>.trace), NULL
 * for trace=none. */
const char *detsim__trace_path(char *buf, size_t len);

/* Installs the crash handlers (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT)
 * and an alternate signal stack for the calling thread. */
void detsim__report_install(void);
void detsim__altstack_install(void);

#endif /* DETSIM_CORE_PART_H */
