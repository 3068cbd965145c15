/* Trace files: loading, checking, comparing (see st_trace.h). */
#include "st_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st_limits.h"
#include "st_util.h"

static const char *const event_kinds[] = {
#define DETSIM_EVENT(name, desc) #name,
#include "../../runtime/events.inc"
#undef DETSIM_EVENT
};

/* The kind's number in events.inc (what the history hash folds), or -1. */
static int kind_index(const char *s, size_t n) {
  for (size_t i = 0; i < sizeof event_kinds / sizeof event_kinds[0]; i++)
    if (strlen(event_kinds[i]) == n && !strncmp(event_kinds[i], s, n)) return (int)i;
  return -1;
}

/* The runtime's history hash (runtime/trace/trace.c: detsim__trace_event and
 * detsim__history_hash), recomputed from a whole trace so that an altered
 * file is caught even where every line still parses.  It must change
 * together with the runtime's; the tools' tests replay trace files, so a
 * mismatch cannot go unnoticed. */
static uint64_t fold_history(const struct st_trace *t) {
  uint64_t h = 0x6a09e667f3bcc909ull;
  for (size_t i = 0; i < t->nev; i++) {
    const struct st_trace_event *e = &t->ev[i];
    uint64_t x = (uint64_t)kind_index(e->kind, e->kind_len) | ((uint64_t)e->tid << 8) | ((uint64_t)e->val << 32);
    h = ((h << 23) | (h >> 41)) ^ x;
    h *= 0x9e3779b97f4a7c15ull;
  }
  h ^= t->total;
  h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
  h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

/* Reads a decimal number at *p; false if none. */
static bool num(const char **p, uint64_t *v) {
  const char *s = *p;
  if (*s < '0' || *s > '9') return false;
  uint64_t x = 0;
  while (*s >= '0' && *s <= '9') {
    unsigned d = (unsigned)(*s - '0');
    if (x > (UINT64_MAX - d) / 10) return false;
    x = x * 10 + d;
    s++;
  }
  *v = x;
  *p = s;
  return true;
}

static bool lit(const char **p, const char *s) {
  size_t n = strlen(s);
  if (strncmp(*p, s, n)) return false;
  *p += n;
  return true;
}

/* One event line (without its newline, NUL-terminated by the caller). */
static bool parse_event(const char *line, size_t len, struct st_trace_event *e) {
  const char *p = line;
  uint64_t sec, nsec, tid, val;
  while (*p == ' ') p++;
  if (!num(&p, &e->n) || !lit(&p, " t=") || !num(&p, &sec) || *p++ != '.') return false;
  const char *ns = p;
  if (!num(&p, &nsec) || p - ns != 9 || !lit(&p, " T") || !num(&p, &tid)) return false;
  e->node = NULL;
  e->node_len = 0;
  if (*p == '@') {
    e->node = ++p;
    e->node_len = strcspn(p, " ");
    if (e->node_len == 0) return false;
    p += e->node_len;
  }
  if (*p++ != ' ') return false;
  e->kind = p;
  e->kind_len = strcspn(p, " ");
  if (kind_index(p, e->kind_len) < 0) return false;
  p += e->kind_len;
  while (*p == ' ') p++;
  if (!lit(&p, "obj=0x")) return false;
  const char *hex = p;
  e->obj = strtoull(hex, (char **)&p, 16);
  if (p == hex || !lit(&p, " val=") || !num(&p, &val) || val > UINT32_MAX) return false;
  e->site = NULL;
  e->site_len = 0;
  if (lit(&p, " at ")) {
    e->site = p;
    e->site_len = (size_t)(line + len - p);
    p = line + len;
  }
  if (p != line + len) return false;
  e->t_ns = sec * 1000000000ull + nsec;
  e->tid = (unsigned)tid;
  e->val = (uint32_t)val;
  e->line = line;
  e->line_len = len;
  return true;
}

static int bad(char *err, size_t errlen, const char *name, size_t lineno, const char *what) {
  snprintf(err, errlen, "%s: line %zu: %s", name, lineno, what);
  return -1;
}

int st_trace_parse(char *data, size_t len, const char *name, struct st_trace *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  t->data = data;
  t->len = len;
  if (memchr(data, '\0', len)) return bad(err, errlen, name, 1, "not a text file (NUL bytes): not a detsim trace");
  size_t lineno = 0;
  bool header = false;
  char *p = data;
  size_t cap = 0;
  while (p < data + len) {
    char *nl = memchr(p, '\n', (size_t)(data + len - p));
    lineno++;
    if (!nl) return bad(err, errlen, name, lineno, "the last line has no newline: the file is truncated");
    *nl = '\0';
    size_t n = (size_t)(nl - p);
    if (lineno == 1) {
      unsigned long long a, b, m, k;
      if (sscanf(p, "# detsim trace: events %llu..%llu of %llu (%*[a-z ]: trace_events=%llu)", &a, &b, &m, &k) != 4)
        return bad(err, errlen, name, lineno, "not a detsim trace (expected '# detsim trace: events A..B of M ...')");
      t->first = a, t->last = b, t->total = m, t->ring = k;
      if (m > 0 && (b < a || b >= m)) return bad(err, errlen, name, lineno, "the event range A..B of M is impossible");
      header = true;
    } else if (p[0] == '#') {
      unsigned long long s, e;
      char h[17];
      if (!strncmp(p, "# seed=", 7)) {
        if (sscanf(p, "# seed=%llu events=%llu history=%16[0-9a-f]", &s, &e, h) != 3 || strlen(h) != 16)
          return bad(err, errlen, name, lineno, "bad '# seed=S events=M history=H' line");
        t->has_id = true;
        t->seed = s, t->events = e, t->history = strtoull(h, NULL, 16);
      } else if (!strncmp(p, "# world: ", 9)) {
        t->world = true;
      } else if (!strncmp(p, "# replay: ", 10)) {
        free(t->replay);
        t->replay = st_xstrdup(p + 10);
      }
      /* other comment lines (the column legend) are fine */
    } else {
      if (t->nev == cap) t->ev = st_xrealloc(t->ev, sizeof *t->ev * (cap = cap ? cap * 2 : 1024));
      struct st_trace_event *e = &t->ev[t->nev];
      if (!parse_event(p, n, e)) {
        char what[160];
        snprintf(what, sizeof what, "not an event line ('%.60s'): the file is corrupted", p);
        return bad(err, errlen, name, lineno, what);
      }
      uint64_t want = t->first + t->nev;
      /* A world's trace skips what no node kept; it never goes back. */
      bool in_order = t->world ? e->n >= want && e->n <= t->last && (t->nev == 0 || e->n > t->ev[t->nev - 1].n)
                                 && (t->nev > 0 || e->n == t->first)
                               : e->n == want;
      if (!in_order) {
        char what[160];
        snprintf(what, sizeof what, "event %" PRIu64 " where event %" PRIu64 " belongs: the file is corrupted", e->n,
                 want);
        return bad(err, errlen, name, lineno, what);
      }
      t->nev++;
    }
    p = nl + 1;
  }
  if (!header) return bad(err, errlen, name, 1, "empty file: not a detsim trace");
  uint64_t expect = t->total ? t->last - t->first + 1 : 0;
  if (t->world ? t->nev > expect || (t->nev > 0 && t->ev[t->nev - 1].n != t->last) : t->nev != expect) {
    char what[200];
    snprintf(what, sizeof what, "%zu event lines, but the header promises %" PRIu64 " (events %" PRIu64 "..%" PRIu64
             "): the file is truncated", t->nev, expect, t->first, t->last);
    return bad(err, errlen, name, lineno, what);
  }
  if (t->has_id && t->events != t->total)
    return bad(err, errlen, name, 2, "the '# seed=' line and the first header line disagree on the event count");
  if (t->has_id && t->first == 0 && (!t->world || t->nev == t->total) && fold_history(t) != t->history) {
    char what[200];
    snprintf(what, sizeof what, "the events do not fold to the header's history %016" PRIx64 " (they give %016" PRIx64
             "): the file was altered", t->history, fold_history(t));
    return bad(err, errlen, name, 2, what);
  }
  return 0;
}

int st_trace_load(const char *path, struct st_trace *t, char *err, size_t errlen) {
  char *data;
  size_t len;
  memset(t, 0, sizeof *t);
  if (st_read_file(path, SIMREPLAY_TRACE_BYTES_MAX, &data, &len) != 0) {
    if (errno == EFBIG)
      snprintf(err, errlen, "%s: larger than %llu bytes (limit SIMREPLAY_TRACE_BYTES_MAX)", path,
               (unsigned long long)SIMREPLAY_TRACE_BYTES_MAX);
    else
      snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  return st_trace_parse(data, len, path, t, err, errlen);
}

void st_trace_free(struct st_trace *t) {
  free(t->data);
  free(t->ev);
  free(t->replay);
  memset(t, 0, sizeof *t);
}

static bool same_event(const struct st_trace_event *a, const struct st_trace_event *b) {
  return a->n == b->n && a->t_ns == b->t_ns && a->tid == b->tid && a->val == b->val && a->kind_len == b->kind_len &&
         !strncmp(a->kind, b->kind, a->kind_len) && a->node_len == b->node_len &&
         (a->node_len == 0 || !strncmp(a->node, b->node, a->node_len));
}

/* The index of the first event numbered n or later (nev when none). */
static size_t index_from(const struct st_trace *t, uint64_t n) {
  size_t lo = 0, hi = t->nev;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->ev[mid].n < n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const struct st_trace_event *st_trace_find(const struct st_trace *t, uint64_t n) {
  size_t i = index_from(t, n);
  return i < t->nev && t->ev[i].n == n ? &t->ev[i] : NULL;
}

/* Walks both traces by event number over what both kept (a world's trace
 * may skip events no node kept: an event one side has and the other lacks
 * is a difference). */
void st_trace_diverge(const struct st_trace *a, const struct st_trace *b, struct st_divergence *d) {
  memset(d, 0, sizeof *d);
  uint64_t from = a->first > b->first ? a->first : b->first;
  size_t i = index_from(a, from), j = index_from(b, from);
  while (i < a->nev && j < b->nev) {
    const struct st_trace_event *x = &a->ev[i], *y = &b->ev[j];
    if (x->n != y->n || !same_event(x, y)) {
      d->found = true;
      d->n = x->n < y->n ? x->n : y->n;
      d->a = x->n == d->n ? x : NULL;
      d->b = y->n == d->n ? y : NULL;
      return;
    }
    i++;
    j++;
  }
  if (i < a->nev || j < b->nev) {
    d->found = true;
    d->a = i < a->nev ? &a->ev[i] : NULL;
    d->b = j < b->nev ? &b->ev[j] : NULL;
    d->n = d->a ? d->a->n : d->b->n;
    return;
  }
  /* Equal wherever both have events: any difference is in what was
   * dropped from the front of a ring. */
  d->before_kept = a->first > 0 || b->first > 0;
}

void st_trace_event_text(const struct st_trace_event *e, char *buf, size_t n) {
  snprintf(buf, n, "event %" PRIu64 "  t=%" PRIu64 ".%09" PRIu64 "  T%u%s%.*s  %.*s  val=%u%s%.*s", e->n,
           (uint64_t)(e->t_ns / 1000000000u), (uint64_t)(e->t_ns % 1000000000u), e->tid, e->node ? "@" : "",
           (int)e->node_len, e->node ? e->node : "", (int)e->kind_len, e->kind, e->val,
           e->site ? "  at " : "", (int)e->site_len, e->site ? e->site : "");
}
