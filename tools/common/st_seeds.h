/* Seed sets: the --seeds SPEC of simrun and simreplay --compare, and the
 * shard of a set one invocation runs.
 *
 * SPEC is one of
 *   N          seeds 1..N (N >= 1)
 *   A-B        seeds A..B (A <= B); A-A is the single seed A
 *   a,b,A-B    a list of seeds and ranges, none repeated
 *   HASH[:N]   a 40- or 64-hex git commit hash: N consecutive seeds (default:
 *              the level's count) starting at the u64 of the hash's first 16
 *              hex digits, so every commit gets its own fixed seeds.
 * A set is kept as ranges, never expanded: the seed at an index is computed.
 */
#ifndef ST_SEEDS_H
#define ST_SEEDS_H

#include <stddef.h>
#include <stdint.h>

struct st_seed_range {
  uint64_t first, count; /* seeds first, first+1, ... (mod 2^64) */
};

struct st_seeds {
  struct st_seed_range *ranges;
  int nranges;
  uint64_t total;
  char label[160]; /* how the report names the set */
};

/* Parses SPEC; `default_count` is N for a bare hash.  0, or -1 with a
 * message naming the problem in err. */
int st_seeds_parse(const char *spec, uint64_t default_count, struct st_seeds *out, char *err, size_t errlen);
/* The seed at `index` (< total). */
uint64_t st_seeds_at(const struct st_seeds *s, uint64_t index);

#endif
