/* Fuzz mode's coverage (fuzz/fuzz.h).  The compiler's coverage module
 * constructors (-fsanitize-coverage=inline-8bit-counters) hand their
 * counter ranges to __sanitizer_cov_8bit_counters_init, defined here; the
 * runtime itself is not instrumented, so the counters are the program's. */
#include "fuzz/fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_abi.h"
#include "core/core.h"
#include "intercept/intercept.h"
#include "limits.h"
#include "world/world.h"

bool detsim__fuzz_on;

static struct { uint8_t *start, *stop; } modules[DETSIM_FUZZ_MODULES_MAX];
static unsigned n_modules, modules_dropped;
static uint8_t sched_features[DETSIM_FUZZ_SCHED_FEATURES];
static int written;

/* Called by every instrumented module's constructor, before the program
 * (and perhaps before the runtime's own initialization): it only records.
 * Under the name the compiler calls in a plain --fuzz build; a sanitized
 * one calls it through the executable's definition
 * (sanitize_defaults/fuzz_counters_hook.c), which wins over the
 * sanitizer's own. */
DETSIM_EXPORT void detsim_fuzz_counters_init(uint8_t *start, uint8_t *stop);
DETSIM_EXPORT void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop) {
  detsim_fuzz_counters_init(start, stop);
}

void detsim_fuzz_counters_init(uint8_t *start, uint8_t *stop) {
  if (start == NULL || stop <= start) return;
  for (unsigned i = 0; i < n_modules; i++)
    if (modules[i].start == start) return; /* the same module twice */
  if (n_modules == DETSIM_FUZZ_MODULES_MAX) {
    modules_dropped++;
    return;
  }
  modules[n_modules].start = start;
  modules[n_modules].stop = stop;
  n_modules++;
  /* A node's program registers when the world first runs it: the launcher
   * lays out the world's coverage by what its nodes registered. */
  if (detsim__world_hosts()) {
    uint32_t *noted = &detsim__ws->nodes[detsim__node_index].fuzz_counters;
    if (detsim__fuzz_counters() > *noted) *noted = detsim__fuzz_counters();
  }
}

void detsim__fuzz_switch(uintptr_t from, uintptr_t to) {
  uint64_t h = ((uint64_t)from * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)to * 0xc2b2ae3d27d4eb4full);
  h ^= h >> 29;
  uint8_t *c = &sched_features[h & (DETSIM_FUZZ_SCHED_FEATURES - 1)];
  if (*c != 0xff) (*c)++;
}


static uint64_t counters_total(void) {
  uint64_t total = 0;
  for (unsigned i = 0; i < n_modules; i++) total += (uint64_t)(modules[i].stop - modules[i].start);
  return total;
}

uint32_t detsim__fuzz_counters(void) {
  uint64_t total = counters_total();
  return (uint32_t)(total < DETSIM_FUZZ_COUNTERS_MAX ? total : DETSIM_FUZZ_COUNTERS_MAX);
}

static uint8_t saturating_add(uint8_t a, uint8_t b) { return (uint8_t)(a + b < 0xff ? a + b : 0xff); }

void detsim__fuzz_world_begin(void) {
  if (!detsim__fuzz_on || detsim__ws == NULL || detsim__world_hosts()) return;
  uint64_t n = detsim__fuzz_counters();
  detsim__ws->fuzz_merged = detsim__net_calloc(1, (size_t)n + DETSIM_FUZZ_SCHED_FEATURES);
  detsim__ws->fuzz_merged_counters = n;
}

/* The shared sum, when this process's counters are laid out as it is. */
static uint8_t *merged_here(void) {
  if (!detsim__in_world || detsim__world_hosts() || detsim__ws->fuzz_merged == NULL) return NULL;
  return detsim__ws->fuzz_merged_counters == detsim__fuzz_counters() ? detsim__ws->fuzz_merged : NULL;
}

void detsim__fuzz_world_give(void) {
  uint8_t *m = merged_here();
  if (m == NULL) return;
  uint64_t left = detsim__ws->fuzz_merged_counters;
  for (unsigned i = 0; i < n_modules && left > 0; i++) {
    uint64_t n = (uint64_t)(modules[i].stop - modules[i].start);
    if (n > left) n = left;
    for (uint64_t k = 0; k < n; k++) m[k] = saturating_add(m[k], modules[i].start[k]);
    m += n;
    left -= n;
  }
  m = detsim__ws->fuzz_merged + detsim__ws->fuzz_merged_counters;
  for (unsigned k = 0; k < DETSIM_FUZZ_SCHED_FEATURES; k++) m[k] = saturating_add(m[k], sched_features[k]);
}

/* Writes n bytes of this process's counters at `p`, with the shared sum's
 * at `m` added (NULL: none), in pieces from a stack buffer. */
static bool write_summed(int fd, const uint8_t *p, const uint8_t *m, uint64_t n) {
  if (m == NULL) return detsim__write_all(fd, p, (size_t)n);
  uint8_t buf[4096];
  while (n > 0) {
    size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
    for (size_t i = 0; i < k; i++) buf[i] = saturating_add(p[i], m[i]);
    if (!detsim__write_all(fd, buf, k)) return false;
    p += k;
    m += k;
    n -= k;
  }
  return true;
}

void detsim__fuzz_write_out(void) {
  const char *path = detsim__opt.fuzz_out;
  if (!path[0] || __atomic_exchange_n(&written, 1, __ATOMIC_ACQ_REL)) return;
  /* A node of a world writes its part; the launcher merges them. */
  char part[DETSIM_PATH_BYTES_MAX + 64];
  if (detsim__world_hosts()) {
    const struct detsim_world_node *me = &detsim__ws->nodes[detsim__node_index];
    snprintf(part, sizeof part, "%s.%.*s.%u", path, DETSIM_WORLD_NAME_BYTES, me->name, me->incarnation);
    path = part;
  }
  uint64_t total = counters_total();
  struct detsim_fuzz_header h = {
    .magic = DETSIM_FUZZ_MAGIC,
    .version = DETSIM_FUZZ_VERSION,
    .counters = (uint32_t)(total < DETSIM_FUZZ_COUNTERS_MAX ? total : DETSIM_FUZZ_COUNTERS_MAX),
    .counters_total = (uint32_t)(total < UINT32_MAX ? total : UINT32_MAX),
    .modules_dropped = modules_dropped,
    .sched_features = DETSIM_FUZZ_SCHED_FEATURES,
    .choices_used = detsim__choices_used(),
  };
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    detsim__msg("fuzz_out: cannot write %s: %s", path, strerror(errno));
    return;
  }
  /* A run's own world: the processes that ended before are in the sum. */
  const uint8_t *m = merged_here();
  bool ok = detsim__write_all(fd, &h, sizeof h);
  uint64_t left = h.counters;
  for (unsigned i = 0; ok && i < n_modules && left > 0; i++) {
    uint64_t n = (uint64_t)(modules[i].stop - modules[i].start);
    if (n > left) n = left;
    ok = write_summed(fd, modules[i].start, m, n);
    if (m) m += n;
    left -= n;
  }
  if (ok) ok = write_summed(fd, sched_features, m, sizeof sched_features);
  close(fd);
  if (!ok) detsim__msg("fuzz_out: writing %s failed", path);
}
