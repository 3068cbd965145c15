/* A world's trace: the nodes' parts merged by event number.
 *
 * Each node recorded the events it made, in a ring of its own, and wrote
 * them to <trace>.<node>.<incarnation> (runtime/world/world_trace.c).  Every event
 * of the world's history belongs to exactly one node, so the parts
 * interleave into one trace with the world's own numbering.  What no part
 * holds (a crashed process's records, events older than a ring) is simply
 * absent: the header says the trace is a world's, which lets readers accept
 * the gaps (tools/common/st_trace.c).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simworld.h"
#include "st_limits.h"
#include "st_util.h"

#include "../../runtime/world_trace_part.h"

static const char *const event_names[] = {
#define DETSIM_EVENT(name, desc) #name,
#include "../../runtime/events.inc"
#undef DETSIM_EVENT
};
#define EVENT_KINDS (sizeof event_names / sizeof *event_names)

struct record {
  uint64_t n;
  char *line;
};

static int by_event(const void *a, const void *b) {
  uint64_t x = ((const struct record *)a)->n, y = ((const struct record *)b)->n;
  return x < y ? -1 : x > y;
}

struct site {
  uint64_t pc;
  const char *text;
  uint32_t len;
};

static int by_pc(const void *a, const void *b) {
  uint64_t x = ((const struct site *)a)->pc, y = ((const struct site *)b)->pc;
  return x < y ? -1 : x > y;
}

/* Reads one node's part and appends its records as trace lines; returns
 * its ring size, 0 when the part is not one (a message says why). */
static uint64_t read_part(const char *path, const char *node, const char *data, size_t len, struct record **v,
                          size_t *n, size_t *cap) {
  struct detsim_part_header h;
  if (len < sizeof h || memcmp(data, DETSIM_PART_MAGIC, 8) != 0) {
    fprintf(stderr, "simworld: %s is not a node's trace part: left out of the trace\n", path);
    return 0;
  }
  memcpy(&h, data, sizeof h);
  size_t off = sizeof h;
  struct site *sites = st_xcalloc((size_t)h.n_sites + 1, sizeof *sites);
  for (uint32_t i = 0; i < h.n_sites; i++) {
    if (off + 12 > len) goto truncated;
    memcpy(&sites[i].pc, data + off, 8);
    memcpy(&sites[i].len, data + off + 8, 4);
    off += 12;
    if (off + sites[i].len > len) goto truncated;
    sites[i].text = data + off;
    off += sites[i].len;
  }
  if (off + (size_t)h.n_records * sizeof(struct detsim_part_record) > len) goto truncated;
  qsort(sites, h.n_sites, sizeof *sites, by_pc);
  char at_node[DETSIM_WORLD_NAME_BYTES + 16];
  snprintf(at_node, sizeof at_node, "@%s", node);
  for (uint32_t k = 0; k < h.n_records; k++, off += sizeof(struct detsim_part_record)) {
    struct detsim_part_record r;
    memcpy(&r, data + off, sizeof r);
    struct site key = { r.pc, NULL, 0 };
    const struct site *st = r.pc ? bsearch(&key, sites, h.n_sites, sizeof *sites, by_pc) : NULL;
    if (*n == *cap) *v = st_xrealloc(*v, sizeof **v * (*cap = *cap ? *cap * 2 : 4096));
    (*v)[(*n)++] = (struct record){
      r.n, st_xasprintf(DETSIM_TRACE_LINE_FORMAT, r.n, r.time_ns / 1000000000u, r.time_ns % 1000000000u, r.tid, at_node,
                        r.kind < EVENT_KINDS ? event_names[r.kind] : "?", r.obj, r.aux, st ? (int)st->len : 0,
                        st ? st->text : "")
    };
  }
  free(sites);
  return h.ring;
truncated:
  free(sites);
  fprintf(stderr, "simworld: %s (%s's trace part) is truncated: left out of the trace\n", path, node);
  return 0;
}

/* The parts of the processes forked on node `name`, <base>.<name>.pid*:
 * each path, malloc'd, to fn (which owns it). */
static void each_forked_part(const char *base, const char *name, void (*fn)(void *ctx, char *path), void *ctx) {
  char *copy = st_xstrdup(base);
  char *slash = strrchr(copy, '/');
  const char *dir = slash ? (slash == copy ? "/" : copy) : ".";
  const char *file = slash ? slash + 1 : copy;
  if (slash) *slash = '\0';
  char *prefix = st_xasprintf("%s.%s.pid", file, name);
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d)) != NULL;)
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
      fn(ctx, slash ? st_xasprintf("%s/%s", dir, e->d_name) : st_xstrdup(e->d_name));
  if (d) closedir(d);
  free(prefix);
  free(copy);
}

struct merge {
  const char *node;
  struct record **v;
  size_t *n, *cap;
  uint64_t *ring;
};

static void merge_part(void *ctx, char *part) {
  struct merge *m = ctx;
  char *data;
  size_t len;
  /* A forked process's threads are named with its node and its pid
   * (T1@srv/1003): thread ids are per process. */
  const char *pid = strrchr(part, '/');
  pid = strstr(pid ? pid : part, ".pid");
  char *label = st_xasprintf("%s/%d", m->node, pid ? atoi(pid + 4) : 0);
  if (st_read_file(part, SIMREPLAY_TRACE_BYTES_MAX, &data, &len) == 0) {
    uint64_t k = read_part(part, label, data, len, m->v, m->n, m->cap);
    if (k > *m->ring) *m->ring = k;
    free(data);
    unlink(part);
  }
  free(label);
  free(part);
}

static void remove_part(void *ctx, char *part) {
  (void)ctx;
  unlink(part);
  free(part);
}

char *sw_trace_merge(const struct sw_run *r, const char *base, const char *replay) {
  const struct detsim_world_shared *w = r->world;
  struct record *v = NULL;
  size_t n = 0, cap = 0;
  uint64_t ring = 0;
  struct st_buf nodes = { 0 };
  st_buf_puts(&nodes, "");
  for (unsigned i = 0; i < r->sc->n_nodes; i++) {
    st_buf_printf(&nodes, "%s%s", i ? "," : "", r->sc->nodes[i].name);
    struct merge m = { r->sc->nodes[i].name, &v, &n, &cap, &ring };
    each_forked_part(base, r->sc->nodes[i].name, merge_part, &m);
    for (uint32_t inc = 1; inc <= w->nodes[i].incarnation && inc <= 64; inc++) {
      char *part = st_xasprintf("%s.%s.%u", base, r->sc->nodes[i].name, inc);
      char *data;
      size_t len;
      if (st_read_file(part, SIMREPLAY_TRACE_BYTES_MAX, &data, &len) == 0) {
        uint64_t k = read_part(part, r->sc->nodes[i].name, data, len, &v, &n, &cap);
        if (k > ring) ring = k;
        free(data);
        unlink(part);
      }
      free(part);
    }
  }
  char *out = NULL;
  if (n > 0) {
    qsort(v, n, sizeof *v, by_event);
    uint64_t events = w->ended ? w->end_events : w->events;
    uint64_t history = w->ended ? w->end_history : 0;
    FILE *f = fopen(base, "w");
    if (f == NULL) {
      fprintf(stderr, "simworld: cannot write the world's trace %s: %s\n", base, strerror(errno));
    } else {
      fprintf(f, DETSIM_TRACE_HEADER_FORMAT, v[0].n, v[n - 1].n, events, DETSIM_TRACE_HEADER_DROPPED(v[0].n), ring);
      fprintf(f, "# world: nodes=%s (each event as its node recorded it; what no node kept, a crashed process's "
                 "or older than a ring, is missing)\n", nodes.s);
      fprintf(f, "# seed=%" PRIu64 " events=%" PRIu64 " history=%016" PRIx64 "\n", r->seed, events, history);
      fprintf(f, "# replay: %s\n", replay);
      fprintf(f, "# event time(s) thread@node kind object value site\n");
      for (size_t i = 0; i < n; i++) {
        if (i > 0 && v[i].n == v[i - 1].n) continue; /* never: each event has one node */
        fputs(v[i].line, f);
      }
      if (fclose(f) == 0) out = st_xstrdup(base);
    }
  }
  for (size_t i = 0; i < n; i++) free(v[i].line);
  free(v);
  st_buf_free(&nodes);
  return out;
}

void sw_trace_parts_remove(const struct sw_run *r, const char *base) {
  for (unsigned i = 0; i < r->sc->n_nodes; i++) {
    each_forked_part(base, r->sc->nodes[i].name, remove_part, NULL);
    for (uint32_t inc = 1; inc <= r->world->nodes[i].incarnation && inc <= 64; inc++) {
      char *part = st_xasprintf("%s.%s.%u", base, r->sc->nodes[i].name, inc);
      unlink(part);
      free(part);
    }
  }
}
