/* Seeded randomness: the seed tree and the generator of each stream.
 *
 * Every consumer of randomness (the scheduler, the program's getrandom, the
 * clock's offset, later the network and faults) draws from its own stream,
 * whose seed is a hash of the root seed and the stream's label.  Adding a
 * consumer therefore never reshuffles the draws of the others.
 */
#ifndef DETSIM_PRNG_H
#define DETSIM_PRNG_H

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

#endif
