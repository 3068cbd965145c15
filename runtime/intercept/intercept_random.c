/* Interceptors: randomness, drawn from the seed's "random" stream.
 *
 * A program's entropy is part of its history: the same seed gives the same
 * bytes.  Threads outside the simulation get real entropy.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "core/core.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "world/world.h"

/* Linux returns at most this many bytes from one getrandom call. */
#define DETSIM_GETRANDOM_BYTES_MAX 33554431u

static struct detsim_rng random_rng;
static bool random_rng_ready;

static void fill(void *buf, size_t len, uintptr_t pc) {
  detsim__yield_aux(DETSIM_EV_random, NULL, pc, (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len));
  if (!random_rng_ready) {
    char label[64];
    /* Nodes of a world draw different bytes, as different machines do. */
    detsim__world_label(label, sizeof label, "random");
    detsim__rng_init(&random_rng, detsim__seed_child(detsim__seed(), label));
    random_rng_ready = true;
  }
  uint8_t *p = buf;
  while (len >= 8) {
    uint64_t x = detsim__rng_next(&random_rng);
    memcpy(p, &x, 8);
    p += 8;
    len -= 8;
  }
  if (len) {
    uint64_t x = detsim__rng_next(&random_rng);
    memcpy(p, &x, len);
  }
}

DETSIM_EXPORT ssize_t __detsim_getrandom(void *buf, size_t len, unsigned int flags) {
  if (detsim__self() == NULL) return REAL(getrandom)(buf, len, flags);
  if (flags & ~(unsigned)(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE)) {
    errno = EINVAL;
    return -1;
  }
  if (len > DETSIM_GETRANDOM_BYTES_MAX) len = DETSIM_GETRANDOM_BYTES_MAX;
  fill(buf, len, (uintptr_t)__builtin_return_address(0));
  return (ssize_t)len;
}
DETSIM_INTERCEPT_ALIAS(getrandom)

DETSIM_EXPORT int __detsim_getentropy(void *buf, size_t len) {
  if (detsim__self() == NULL) return REAL(getentropy)(buf, len);
  if (len > 256) {
    errno = EIO;
    return -1;
  }
  fill(buf, len, (uintptr_t)__builtin_return_address(0));
  return 0;
}
DETSIM_INTERCEPT_ALIAS(getentropy)

DETSIM_EXPORT uint32_t __detsim_arc4random(void) {
  if (detsim__self() == NULL) return REAL(arc4random)();
  uint32_t x;
  fill(&x, sizeof x, (uintptr_t)__builtin_return_address(0));
  return x;
}
DETSIM_INTERCEPT_ALIAS(arc4random)

DETSIM_EXPORT void __detsim_arc4random_buf(void *buf, size_t n) {
  if (detsim__self() == NULL) {
    REAL(arc4random_buf)(buf, n);
    return;
  }
  fill(buf, n, (uintptr_t)__builtin_return_address(0));
}
DETSIM_INTERCEPT_ALIAS(arc4random_buf)

DETSIM_EXPORT uint32_t __detsim_arc4random_uniform(uint32_t upper) {
  if (detsim__self() == NULL) return REAL(arc4random_uniform)(upper);
  if (upper < 2) return 0;
  uint64_t x;
  fill(&x, sizeof x, (uintptr_t)__builtin_return_address(0));
  return (uint32_t)(((unsigned __int128)x * upper) >> 64);
}
DETSIM_INTERCEPT_ALIAS(arc4random_uniform)
