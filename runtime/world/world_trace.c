/* A world's trace is the union of its nodes' rings: each event of the one
 * history is recorded by the node that made it.  Each node writes what it
 * recorded to a part, <trace>.<node>.<incarnation> (world_trace_part.h;
 * a process forked on a node: <trace>.<node>.pid<pid>.<incarnation>),
 * when the world ends badly (asked by the launcher, or as the node that
 * ended it), when it leaves the world (an exit, a SIGTERM stop, a crash
 * before the kill) and, with trace_always, at the end; the launcher merges
 * the parts by event number into <trace> (tools/simworld/trace_merge.c), or
 * removes them when no trace is wanted.  A part is raw records: a node
 * leaving the world pays for a copy, and only a trace someone will read is
 * formatted. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "trace/trace.h"
#include "world/world.h"
#include "world_trace_part.h"

struct out {
  int fd;
  char buf[64 * 1024];
  size_t used;
  int err;
};

static void put(struct out *o, const void *p, size_t n) {
  if (o->used + n > sizeof o->buf) {
    if (o->used && write(o->fd, o->buf, o->used) != (ssize_t)o->used) o->err = 1;
    o->used = 0;
    if (n > sizeof o->buf) {
      if (write(o->fd, p, n) != (ssize_t)n) o->err = 1;
      return;
    }
  }
  memcpy(o->buf + o->used, p, n);
  o->used += n;
}

/* Open addressing over twice the sites a part may name. */
#define SITE_SLOTS (2 * DETSIM_PART_SITES_MAX)

uint64_t detsim__world_trace_from;

/* The events this process recorded itself: a forked child's ring starts as
 * a copy of its parent's, whose part holds those. */
static uint64_t first_own(void) {
  uint64_t k = detsim__trace_first_kept();
  return k > detsim__world_trace_from ? k : detsim__world_trace_from;
}

static int write_part(const char *path) {
  const struct detsim_trace_state *t = &detsim__trace;
  static uint64_t sites[DETSIM_PART_SITES_MAX], slots[SITE_SLOTS];
  memset(slots, 0, sizeof slots);
  uint32_t n_sites = 0, n_records = 0;
  for (uint64_t n = first_own(); n < t->events; n++) {
    if (!detsim__trace_holds(n)) continue;
    n_records++;
    uint64_t pc = t->ring[n & t->mask].pc;
    if (pc == 0 || n_sites == DETSIM_PART_SITES_MAX) continue;
    unsigned k = (unsigned)((pc * 0x9e3779b97f4a7c15ull) >> 51) % SITE_SLOTS;
    while (slots[k] != 0 && slots[k] != pc) k = (k + 1) % SITE_SLOTS;
    if (slots[k] == 0) {
      slots[k] = pc;
      sites[n_sites++] = pc;
    }
  }
  static struct out o;
  o.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (o.fd < 0) return -1;
  o.used = 0;
  o.err = 0;
  struct detsim_part_header h;
  memcpy(h.magic, DETSIM_PART_MAGIC, sizeof h.magic);
  h.ring = t->mask + 1;
  h.n_sites = n_sites;
  h.n_records = n_records;
  put(&o, &h, sizeof h);
  for (uint32_t i = 0; i < n_sites; i++) {
    const char *text = detsim__site_text((uintptr_t)sites[i]);
    uint32_t len = (uint32_t)strlen(text);
    put(&o, &sites[i], sizeof sites[i]);
    put(&o, &len, sizeof len);
    put(&o, text, len);
  }
  for (uint64_t n = first_own(); n < t->events; n++) {
    if (!detsim__trace_holds(n)) continue;
    const struct detsim_trace_record *r = &t->ring[n & t->mask];
    struct detsim_part_record p = { n, r->time_ns, r->obj, r->pc, r->aux, r->tid, r->kind, 0 };
    put(&o, &p, sizeof p);
  }
  if (o.used && write(o.fd, o.buf, o.used) != (ssize_t)o.used) o.err = 1;
  if (close(o.fd) != 0) o.err = 1;
  return o.err ? -1 : 0;
}

/* A run's own world: the parts' names begin so (the first process's
 * kernel pid keeps two runs of one seed in one directory apart). */
static void solo_prefix(char *out, size_t n) {
  snprintf(out, n, "%s.%d.pid", detsim__ws->trace_file, (int)detsim__ws->nodes[0].pid);
}

void detsim__world_trace_part(void) {
  char base[DETSIM_PATH_BYTES_MAX + 32], part[DETSIM_WORLD_TRACE_PATH_BYTES + 96];
  const char *path = detsim__trace_path(base, sizeof base);
  if (path == NULL) return;
  const struct detsim_world_node *me = &detsim__ws->nodes[detsim__node_index];
  if (detsim__world_solo) {
    /* The first process merges them (world_trace_merge.c), by pid. */
    if (detsim__ws->trace_file[0] == '\0') return;
    char prefix[DETSIM_WORLD_TRACE_PATH_BYTES + 32];
    solo_prefix(prefix, sizeof prefix);
    snprintf(part, sizeof part, "%s%d.%u", prefix, (int)me->vpid, me->incarnation);
    if (write_part(part) != 0) detsim__msg("warning: cannot write this process's trace part %s", part);
    return;
  }
  /* A process forked on a node is named by its node and its pid, unique
   * in the run. */
  if (me->host1)
    snprintf(part, sizeof part, "%s.%.*s.pid%d.%u", path, DETSIM_WORLD_NAME_BYTES, me->name, (int)me->vpid,
             me->incarnation);
  else
    snprintf(part, sizeof part, "%s.%.*s.%u", path, DETSIM_WORLD_NAME_BYTES, me->name, me->incarnation);
  if (write_part(part) != 0) detsim__msg("warning: cannot write this node's trace part %s", part);
}
