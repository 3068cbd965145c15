/* A world's trace: the nodes' parts merged by event number.
 *
 * Each node recorded the events it made, in a ring of its own, and wrote
 * them to <trace>.<node>.<incarnation> (runtime/world_trace.c).  Every event
 * of the world's history belongs to exactly one node, so the parts
 * interleave into one trace with the world's own numbering.  What no part
 * holds (a crashed process's records, events older than a ring) is simply
 * absent: the header says the trace is a world's, which lets readers accept
 * the gaps (tools/common/st_trace.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simworld.h"
#include "st_limits.h"
#include "st_util.h"

struct record {
  uint64_t n;
  const char *line;
  size_t len;
};

static int by_event(const void *a, const void *b) {
  uint64_t x = ((const struct record *)a)->n, y = ((const struct record *)b)->n;
  return x < y ? -1 : x > y;
}

/* Appends the event lines of one part; returns its ring size (0: none). */
static uint64_t read_part(char *data, size_t len, struct record **v, size_t *n, size_t *cap) {
  uint64_t ring = 0;
  for (char *p = data; p < data + len;) {
    char *nl = memchr(p, '\n', (size_t)(data + len - p));
    size_t l = nl ? (size_t)(nl - p) + 1 : (size_t)(data + len - p);
    unsigned long long a, b, m, k;
    if (p[0] == '#') {
      if (sscanf(p, "# detsim trace: events %llu..%llu of %llu (older events dropped: trace_events=%llu)", &a, &b, &m,
                 &k) == 4)
        ring = k;
    } else if (nl) {
      if (*n == *cap) *v = st_xrealloc(*v, sizeof **v * (*cap = *cap ? *cap * 2 : 4096));
      (*v)[(*n)++] = (struct record){ strtoull(p, NULL, 10), p, l };
    }
    p += l;
  }
  return ring;
}

char *sw_trace_merge(const struct sw_run *r, const char *base, const char *replay) {
  const struct detsim_world_shared *w = r->world;
  struct record *v = NULL;
  size_t n = 0, cap = 0;
  char **texts = st_xcalloc((size_t)w->n_nodes * 64 + 1, sizeof *texts);
  size_t ntexts = 0;
  uint64_t ring = 0;
  struct st_buf nodes = { 0 };
  st_buf_puts(&nodes, "");
  for (unsigned i = 0; i < w->n_nodes; i++) {
    st_buf_printf(&nodes, "%s%s", i ? "," : "", r->sc->nodes[i].name);
    for (uint32_t inc = 1; inc <= w->nodes[i].incarnation && inc <= 64; inc++) {
      char *part = st_xasprintf("%s.%s.%u", base, r->sc->nodes[i].name, inc);
      char *data;
      size_t len;
      if (st_read_file(part, SIMREPLAY_TRACE_BYTES_MAX, &data, &len) == 0) {
        uint64_t k = read_part(data, len, &v, &n, &cap);
        if (k > ring) ring = k;
        texts[ntexts++] = data;
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
      fprintf(f, "# detsim trace: events %" PRIu64 "..%" PRIu64 " of %" PRIu64 " (older events dropped: trace_events=%" PRIu64 ")\n",
              v[0].n, v[n - 1].n, events, ring);
      fprintf(f, "# world: nodes=%s (each event as its node recorded it; what no node kept, a crashed process's "
                 "or older than a ring, is missing)\n", nodes.s);
      fprintf(f, "# seed=%" PRIu64 " events=%" PRIu64 " history=%016" PRIx64 "\n", r->seed, events, history);
      fprintf(f, "# replay: %s\n", replay);
      fprintf(f, "# event time(s) thread@node kind object value site\n");
      for (size_t i = 0; i < n; i++) {
        if (i > 0 && v[i].n == v[i - 1].n) continue; /* never: each event has one node */
        fwrite(v[i].line, 1, v[i].len, f);
      }
      if (fclose(f) == 0) out = st_xstrdup(base);
    }
  }
  for (size_t i = 0; i < ntexts; i++) free(texts[i]);
  free(texts);
  free(v);
  st_buf_free(&nodes);
  return out;
}

void sw_trace_parts_remove(const struct sw_run *r, const char *base) {
  for (unsigned i = 0; i < r->world->n_nodes; i++)
    for (uint32_t inc = 1; inc <= r->world->nodes[i].incarnation && inc <= 64; inc++) {
      char *part = st_xasprintf("%s.%s.%u", base, r->sc->nodes[i].name, inc);
      unlink(part);
      free(part);
    }
}
