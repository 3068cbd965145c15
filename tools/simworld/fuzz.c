/* Fuzz mode of a world (simworld.h; docs/fuzzing.md): the choices file in,
 * the merged coverage out.
 *
 * The choices file's bytes go into the world's header, where every node
 * takes them in the order of the one history (runtime/fuzz/choices.c), so
 * one input decides the whole world's scheduling and its fault draws.
 * Each node process writes its coverage part, <fuzz_out>.<node>.<incarnation>;
 * the world's coverage file is one region per distinct program of the
 * scenario (in the order the scenario first names it), each the saturating
 * sum of the parts of every node and incarnation running that program, then
 * the scheduling features, summed the same way.  Its layout comes from the
 * programs' executables (their __sancov_cntrs sections) and what their
 * processes registered (world_abi.h), not from the parts written, so every
 * run of the scenario writes the same number of counters.
 */
#include "simworld.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../runtime/fuzz_abi.h"
#include "st_classes.h"
#include "st_elf.h"
#include "st_util.h"

struct sw_choices *sw_choices_read(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) st_die(ST_RUNTIME_EXIT_USAGE, "DETSIM_OPTIONS: cannot read choices file %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    st_die(ST_RUNTIME_EXIT_USAGE, "DETSIM_OPTIONS: choices file %s is not a regular file", path);
  if ((uint64_t)st.st_size > DETSIM_CHOICES_BYTES_MAX)
    st_die(ST_RUNTIME_EXIT_USAGE, "DETSIM_OPTIONS: choices file %s has %lld bytes, more than %u (limit choices_bytes)",
           path, (long long)st.st_size, DETSIM_CHOICES_BYTES_MAX);
  struct sw_choices *c = st_xmalloc(sizeof *c + (size_t)st.st_size);
  size_t got = 0;
  while (got < (size_t)st.st_size) {
    ssize_t k = read(fd, c->bytes + got, (size_t)st.st_size - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      st_die(ST_RUNTIME_EXIT_USAGE, "DETSIM_OPTIONS: reading choices file %s failed: %s", path,
             k < 0 ? strerror(errno) : "it shrank while being read");
    got += (size_t)k;
  }
  close(fd);
  c->len = got;
  return c;
}

void sw_choices_load(const struct sw_choices *c, struct detsim_world_shared *w) {
  memcpy(w->choices, c->bytes, c->len);
  w->choices_len = c->len;
  w->choices_pos = 0;
  w->choices_on = 1;
}

static bool read_all(int fd, void *p, size_t n) {
  uint8_t *b = p;
  while (n > 0) {
    ssize_t k = read(fd, b, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    b += k;
    n -= (size_t)k;
  }
  return true;
}

static void add_saturating(uint8_t *into, const uint8_t *from, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned v = (unsigned)into[i] + from[i];
    into[i] = v > 0xff ? 0xff : (uint8_t)v;
  }
}

/* Adds one node's part into the program's region (at most `room` counters)
 * and the features; false when the part is missing or unreadable (a run
 * killed while writing: its coverage is lost, not wrong). */
static bool add_part(const char *path, uint8_t *region, uint32_t room, uint8_t *features, uint32_t *total,
                     uint32_t *dropped) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct detsim_fuzz_header h;
  bool ok = read_all(fd, &h, sizeof h) && h.magic == DETSIM_FUZZ_MAGIC && h.version == DETSIM_FUZZ_VERSION &&
            h.sched_features == DETSIM_FUZZ_SCHED_FEATURES && h.counters <= DETSIM_FUZZ_COUNTERS_MAX;
  uint8_t *buf = ok ? st_xmalloc((size_t)h.counters + DETSIM_FUZZ_SCHED_FEATURES) : NULL;
  if (ok) ok = read_all(fd, buf, (size_t)h.counters + DETSIM_FUZZ_SCHED_FEATURES);
  close(fd);
  if (ok) {
    /* An exec'd image runs another program: only what fits is counted. */
    add_saturating(region, buf, h.counters < room ? h.counters : room);
    add_saturating(features, buf + h.counters, DETSIM_FUZZ_SCHED_FEATURES);
    if (h.counters_total > *total) *total = h.counters_total;
    *dropped += h.modules_dropped;
  }
  free(buf);
  return ok;
}

static bool write_all(int fd, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n > 0) {
    ssize_t k = write(fd, b, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    b += k;
    n -= (size_t)k;
  }
  return true;
}

void sw_fuzz_merge(const struct sw_run *r, const char *out) {
  const struct st_scenario *sc = r->sc;
  const struct detsim_world_shared *w = r->world;
  /* The programs: each node's region is its program's first node's. */
  unsigned region_of[DETSIM_WORLD_NODES_MAX], n_regions = 0;
  uint64_t start[DETSIM_WORLD_NODES_MAX + 1] = { 0 };
  uint32_t size[DETSIM_WORLD_NODES_MAX] = { 0 }, total[DETSIM_WORLD_NODES_MAX] = { 0 };
  for (unsigned i = 0; i < sc->n_nodes; i++) {
    unsigned g = n_regions;
    for (unsigned j = 0; j < i; j++)
      if (!strcmp(sc->nodes[j].program, sc->nodes[i].program)) g = region_of[j];
    if (g == n_regions) {
      /* Its executable's counters, whether or not a node of it ran. */
      struct st_elf_info e;
      if (st_elf_inspect(sc->nodes[i].program, &e) == 0 && e.fuzz_counters <= DETSIM_FUZZ_COUNTERS_MAX)
        size[g] = (uint32_t)e.fuzz_counters;
      n_regions++;
    }
    region_of[i] = g;
    if (w->nodes[i].fuzz_counters > size[g]) size[g] = w->nodes[i].fuzz_counters;
  }
  for (unsigned g = 0; g < n_regions; g++) start[g + 1] = start[g] + size[g];
  uint64_t n = start[n_regions];
  uint8_t *counters = st_xcalloc(n ? n : 1, 1);
  uint8_t features[DETSIM_FUZZ_SCHED_FEATURES] = { 0 };
  uint32_t dropped = 0;
  for (unsigned i = 0; i < sc->n_nodes; i++) {
    unsigned g = region_of[i];
    for (uint32_t inc = 1; inc <= w->nodes[i].incarnation; inc++) {
      char *part = st_xasprintf("%s.%s.%u", out, sc->nodes[i].name, inc);
      add_part(part, counters + start[g], size[g], features, &total[g], &dropped);
      unlink(part);
      free(part);
    }
  }
  uint64_t all_total = 0;
  for (unsigned g = 0; g < n_regions; g++) all_total += total[g] > size[g] ? total[g] : size[g];
  struct detsim_fuzz_header h = {
    .magic = DETSIM_FUZZ_MAGIC,
    .version = DETSIM_FUZZ_VERSION,
    .counters = (uint32_t)(n < DETSIM_FUZZ_COUNTERS_MAX ? n : DETSIM_FUZZ_COUNTERS_MAX),
    .counters_total = (uint32_t)(all_total < UINT32_MAX ? all_total : UINT32_MAX),
    .modules_dropped = dropped,
    .sched_features = DETSIM_FUZZ_SCHED_FEATURES,
    .choices_used = w->choices_on ? w->choices_pos : 0,
  };
  int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && write_all(fd, &h, sizeof h) && write_all(fd, counters, h.counters) &&
            write_all(fd, features, sizeof features);
  if (fd >= 0 && close(fd) != 0) ok = false;
  if (!ok) fprintf(stderr, "simworld: warning: cannot write the world's coverage file %s: %s\n", out, strerror(errno));
  free(counters);
}
