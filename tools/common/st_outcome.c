/* Parsing of the runtime's lines on a run's stderr (see st_outcome.h). */
#include "st_outcome.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st_classes.h"
#include "st_util.h"

/* Reads "key=<decimal>" at *p, advancing past it. */
static bool field_u64(const char **p, const char *key, uint64_t *v) {
  size_t n = strlen(key);
  if (strncmp(*p, key, n)) return false;
  const char *s = *p + n;
  char *end;
  if (*s < '0' || *s > '9') return false;
  unsigned long long x = strtoull(s, &end, 10);
  *v = x;
  *p = end;
  return true;
}

static bool field_hex16(const char **p, const char *key, uint64_t *v) {
  size_t n = strlen(key);
  if (strncmp(*p, key, n)) return false;
  const char *s = *p + n;
  for (int i = 0; i < 16; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
  char tmp[17];
  memcpy(tmp, s, 16);
  tmp[16] = '\0';
  *v = strtoull(tmp, NULL, 16);
  *p = s + 16;
  return true;
}

bool st_parse_result_line(const char *line, struct st_outcome *o) {
  const char *p = line;
  if (strncmp(p, "detsim: ", 8)) return false;
  p += 8;
  size_t cn = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
  int cls = st_class_find(p, (int)cn);
  if (cls < 0 || p[cn] != ' ') return false;
  p += cn + 1;
  uint64_t seed, events, history;
  if (!field_u64(&p, "seed=", &seed) || *p++ != ' ') return false;
  if (!field_u64(&p, "events=", &events) || *p++ != ' ') return false;
  if (!field_hex16(&p, "history=", &history)) return false;
  if (*p != '\0' && *p != ' ' && *p != '\n') return false;
  o->result = true;
  o->cls = cls;
  o->seed = seed;
  o->events = events;
  o->history = history;
  o->sim_us = 0;
  o->have_output = false;
  o->output = 0;
  /* The remaining fields: sim_time=S.UUUUUUs, trace=PATH, logs=DIR,
   * anything else. */
  struct st_buf detail = { 0 };
  st_buf_puts(&detail, "");
  free(o->trace);
  o->trace = NULL;
  free(o->logs);
  o->logs = NULL;
  while (*p == ' ') {
    p++;
    size_t n = strcspn(p, " \n");
    if (!strncmp(p, "sim_time=", 9)) {
      unsigned long long s = 0, us = 0;
      if (sscanf(p + 9, "%llu.%6llus", &s, &us) == 2) o->sim_us = s * 1000000ull + us;
    } else if (!strncmp(p, "trace=", 6)) {
      o->trace = st_xasprintf("%.*s", (int)(n - 6), p + 6);
    } else if (!strncmp(p, "output=", 7)) {
      /* The digest of the program's output: a fact of this run, compared
       * by replays, not part of what failed. */
      const char *q = p;
      uint64_t d;
      if (field_hex16(&q, "output=", &d)) {
        o->have_output = true;
        o->output = d;
      }
    } else if (!strncmp(p, "logs=", 5)) {
      /* A world's log directory differs in every run: not part of what
       * failed, so not of the signature. */
      free(o->logs);
      o->logs = st_xasprintf("%.*s", (int)(n - 5), p + 5);
    } else if (n) {
      if (detail.len) st_buf_puts(&detail, " ");
      st_buf_add(&detail, p, n);
    }
    p += n;
  }
  free(o->detail);
  o->detail = detail.s;
  return true;
}

bool st_parse_first_line(const char *line, uint64_t *seed, char **command) {
  const char *p = line;
  if (!field_u64(&p, "detsim: seed=", seed)) return false;
  if (strncmp(p, " replay: ", 9)) return false;
  p += 9;
  size_t n = strcspn(p, "\n");
  if (command) *command = st_xasprintf("%.*s", (int)n, p);
  return true;
}

/* "detsim: <prefix> name=count name=count ...": the pairs, replacing *list. */
static void parse_counts(const char *line, const char *prefix, const char *skip, struct st_check **list, int *count_out) {
  for (int i = 0; i < *count_out; i++) free((*list)[i].name);
  free(*list);
  *list = NULL;
  *count_out = 0;
  const char *p = line + strlen(prefix);
  while (*p == ' ') {
    p++;
    size_t n = strcspn(p, " \n");
    const char *eq = memchr(p, '=', n);
    uint64_t count;
    char num[32];
    if (eq && (size_t)(p + n - eq - 1) < sizeof num && !(skip && (size_t)(eq - p) == strlen(skip) && !strncmp(p, skip, strlen(skip)))) {
      memcpy(num, eq + 1, (size_t)(p + n - eq - 1));
      num[p + n - eq - 1] = '\0';
      if (st_parse_u64(num, &count)) {
        *list = st_xrealloc(*list, sizeof **list * (size_t)(*count_out + 1));
        (*list)[*count_out].name = st_xasprintf("%.*s", (int)(eq - p), p);
        (*list)[*count_out].count = count;
        (*count_out)++;
      }
    }
    p += n;
  }
}

static void parse_checks(const char *line, struct st_outcome *o) {
  parse_counts(line, "detsim: checked", NULL, &o->checks, &o->nchecks);
}

const char *st_point_kind_name(int kind) {
  switch (kind) {
  case ST_POINT_SOMETIMES: return "sometimes";
  case ST_POINT_REACHABLE: return "reachable";
  case ST_POINT_UNREACHABLE: return "unreachable";
  default: return NULL;
  }
}

int st_point_kind_find(const char *s, size_t n) {
  for (int k = ST_POINT_SOMETIMES; k <= ST_POINT_UNREACHABLE; k++)
    if (strlen(st_point_kind_name(k)) == n && !strncmp(s, st_point_kind_name(k), n)) return k;
  return 0;
}

void st_points_add(struct st_point **list, int *n, int kind, const char *name, uint64_t hits, uint64_t evals) {
  for (int i = 0; i < *n; i++)
    if ((*list)[i].kind == kind && !strcmp((*list)[i].name, name)) {
      (*list)[i].hits += hits;
      (*list)[i].evals += evals;
      return;
    }
  *list = st_xrealloc(*list, sizeof **list * (size_t)(*n + 1));
  (*list)[*n] = (struct st_point){ kind, st_xstrdup(name), hits, evals };
  (*n)++;
}

/* "detsim: point KIND=HITS[/EVALS] NAME" (len bytes): false if not one. */
static bool parse_point(const char *l, size_t len, struct st_outcome *o) {
  const char *p = l + 14, *end = l + len;
  const char *eq = memchr(p, '=', (size_t)(end - p));
  if (!eq) return false;
  int kind = st_point_kind_find(p, (size_t)(eq - p));
  if (!kind) return false;
  char *num_end;
  uint64_t hits = strtoull(eq + 1, &num_end, 10), evals = hits;
  if (num_end == eq + 1) return false;
  if (*num_end == '/') {
    const char *e = num_end + 1;
    evals = strtoull(e, &num_end, 10);
    if (num_end == e) return false;
  }
  if (num_end >= end || *num_end != ' ') return false;
  char *name = st_xasprintf("%.*s", (int)(end - num_end - 1), num_end + 1);
  st_points_add(&o->points, &o->npoints, kind, name, hits, evals);
  free(name);
  return true;
}

static void points_clear(struct st_outcome *o) {
  for (int i = 0; i < o->npoints; i++) free(o->points[i].name);
  free(o->points);
  o->points = NULL;
  o->npoints = 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The function of a "#0 0x... in FUNC+0x..." line, or NULL. */
static char *frame_function(const char *line, size_t len) {
  const char *p = strstr(line, "#0 0x");
  if (!p || p >= line + len) return NULL;
  const char *in = strstr(p, " in ");
  if (!in || in >= line + len) return NULL;
  in += 4;
  size_t n = strcspn(in, "+ \n");
  if (n == 0) return NULL;
  return st_xasprintf("%.*s", (int)n, in);
}

void st_outcome_parse(const char *text, struct st_outcome *o) {
  memset(o, 0, sizeof *o);
  o->cls = -1;
  uint64_t seed;
  o->first_line = st_parse_first_line(text, &seed, &o->command);
  /* Walk the lines once: keep the last result line (it must be the last
   * non-empty line), the last checked line, the frames, any usage error. */
  const char *last_nonempty = NULL, *checked = NULL, *faults = NULL, *last_result = NULL;
  char **frames = NULL;
  int nframes = 0;
  bool in_points = false; /* the previous line was a point line */
  for (const char *l = text; *l;) {
    const char *nl = strchr(l, '\n');
    size_t len = nl ? (size_t)(nl - l) : strlen(l);
    if (len) last_nonempty = l;
    /* The points are the last block of point lines (a world's, after any
     * a node printed). */
    if (!strncmp(l, "detsim: point ", 14)) {
      if (!in_points) points_clear(o);
      in_points = parse_point(l, len, o) || in_points;
    } else if (len) {
      in_points = false;
    }
    if (!strncmp(l, "detsim: checked ", 16)) checked = l;
    if (!strncmp(l, "detsim: faults ", 15)) faults = l;
    if (!strncmp(l, "detsim: ", 8) && strstr(l, " history=") && strstr(l, " history=") < l + len) last_result = l;
    if (!strncmp(l, "detsim: error: ", 15) && !o->usage) o->usage = st_xasprintf("%.*s", (int)(len - 15), l + 15);
    if (!strncmp(l, "detsim: ", 8)) {
      char *f = frame_function(l, len);
      if (f) {
        frames = st_xrealloc(frames, sizeof *frames * (size_t)(nframes + 1));
        frames[nframes++] = f;
      }
    }
    if (!nl) break;
    l = nl + 1;
  }
  if (last_nonempty) {
    size_t len = strcspn(last_nonempty, "\n");
    char *line = st_xasprintf("%.*s", (int)len, last_nonempty);
    /* The program may have left a partial line before the runtime's. */
    char *d = line, *found = NULL;
    while ((d = strstr(d, "detsim: ")) != NULL) found = d++;
    if (found) st_parse_result_line(found, o);
    free(line);
  }
  if (!o->result && last_result) {
    /* The result line is not the last: a thread the runtime could not stop
     * (the watchdog's verdict on a stuck one) wrote on after it. */
    size_t len = strcspn(last_result, "\n");
    char *line = st_xasprintf("%.*s", (int)len, last_result);
    if (st_parse_result_line(line, o)) o->result_not_last = true;
    free(line);
  }
  if (o->result && checked) parse_checks(checked, o);
  if (!o->result) points_clear(o);
  if (o->result && faults) parse_counts(faults, "detsim: faults", "level", &o->faults, &o->nfaults);
  if (nframes) {
    if (o->cls == ST_CLASS_deadlock) {
      qsort(frames, (size_t)nframes, sizeof *frames, cmp_str);
      struct st_buf b = { 0 };
      for (int i = 0; i < nframes; i++) {
        if (i && !strcmp(frames[i], frames[i - 1])) continue;
        if (b.len) st_buf_puts(&b, ",");
        st_buf_puts(&b, frames[i]);
      }
      o->frames = b.s;
    } else {
      o->frames = st_xstrdup(frames[0]);
    }
    for (int i = 0; i < nframes; i++) free(frames[i]);
    free(frames);
  }
}

void st_outcome_free(struct st_outcome *o) {
  free(o->command);
  free(o->detail);
  free(o->trace);
  free(o->logs);
  free(o->frames);
  free(o->usage);
  for (int i = 0; i < o->nchecks; i++) free(o->checks[i].name);
  free(o->checks);
  for (int i = 0; i < o->nfaults; i++) free(o->faults[i].name);
  free(o->faults);
  points_clear(o);
  memset(o, 0, sizeof *o);
  o->cls = -1;
}

char *st_outcome_signature(const struct st_outcome *o) {
  struct st_buf b = { 0 };
  st_buf_puts(&b, st_class_name(o->cls));
  if (o->detail && o->detail[0]) st_buf_printf(&b, " %s", o->detail);
  if (o->frames) st_buf_printf(&b, " in %s", o->frames);
  return b.s;
}

char *st_text_tail(const char *text, int n) {
  const char *end = text + strlen(text);
  const char *p = end;
  int lines = 0;
  /* Walk back over n non-empty lines. */
  while (p > text && lines < n) {
    const char *q = p;
    while (q > text && q[-1] == '\n') q--;
    if (q == text) break;
    while (q > text && q[-1] != '\n') q--;
    p = q;
    lines++;
  }
  struct st_buf b = { 0 };
  st_buf_puts(&b, "");
  for (const char *l = p; l < end;) {
    const char *nl = memchr(l, '\n', (size_t)(end - l));
    size_t len = nl ? (size_t)(nl - l) : (size_t)(end - l);
    if (len) {
      st_buf_add(&b, l, len);
      st_buf_puts(&b, "\n");
    }
    if (!nl) break;
    l = nl + 1;
  }
  return b.s;
}

/* A world's line of a node's stderr, "  NODE| rest": rest, or NULL. */
static const char *node_line_rest(const char *l, size_t len) {
  if (len < 4 || l[0] != ' ' || l[1] != ' ') return NULL;
  size_t name = strcspn(l + 2, "| \n");
  if (name == 0 || 2 + name + 1 >= len || l[2 + name] != '|' || l[2 + name + 1] != ' ') return NULL;
  return l + 2 + name + 2;
}

char *st_own_lines(const char *text, int n) {
  struct st_buf b = { 0 };
  int k = 0;
  for (const char *l = text; *l && k < n;) {
    const char *nl = strchr(l, '\n');
    size_t len = nl ? (size_t)(nl - l) : strlen(l);
    const char *rest = node_line_rest(l, len);
    bool own = len > 0 && strncmp(l, "detsim:", 7) != 0 && strncmp(l, "simworld:", 9) != 0 &&
               !(rest && !strncmp(rest, "detsim:", 7));
    if (own) {
      st_buf_add(&b, l, len);
      st_buf_puts(&b, "\n");
      k++;
    }
    if (!nl) break;
    l = nl + 1;
  }
  return b.s;
}
