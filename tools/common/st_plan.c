/* Schedule plan files: see st_plan.h. */
#include "st_plan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st_limits.h"
#include "st_util.h"

#define PLAN_MAGIC "# detsim plan 1"

bool st_plan_is_plan_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return false;
  char buf[32] = { 0 };
  bool yes = fgets(buf, sizeof buf, f) && !strncmp(buf, PLAN_MAGIC, strlen(PLAN_MAGIC));
  fclose(f);
  return yes;
}

/* A thread as a plan names it: T, PID:T, or PID.I:T after the process's
 * I-th exec (T 0 only with a pid: a process's dispatcher, or the process;
 * runtime/trace/trace.h).  `image` NULL: no image may be named (a chosen
 * thread). */
static bool parse_thread(const char *s, int32_t *pid, uint32_t *thread, uint16_t *image) {
  uint64_t p = 0, t, im = 0;
  const char *colon = strchr(s, ':');
  if (colon) {
    char num[32];
    size_t n = (size_t)(colon - s);
    if (n == 0 || n >= sizeof num) return false;
    memcpy(num, s, n);
    num[n] = '\0';
    char *dot = strchr(num, '.');
    if (dot) {
      *dot = '\0';
      if (image == NULL || !st_parse_u64(dot + 1, &im) || im == 0 || im > UINT16_MAX) return false;
    }
    if (!st_parse_u64(num, &p) || p == 0 || p > INT32_MAX) return false;
    s = colon + 1;
  }
  if (!st_parse_u64(s, &t) || t > UINT32_MAX || (t == 0 && !colon)) return false;
  *pid = (int32_t)p;
  *thread = (uint32_t)t;
  if (image) *image = (uint16_t)im;
  return true;
}

static void print_thread(FILE *f, int32_t pid, uint16_t image, uint32_t thread) {
  if (image) fprintf(f, "%d.%u:%" PRIu32, (int)pid, (unsigned)image, thread);
  else if (pid) fprintf(f, "%d:%" PRIu32, (int)pid, thread);
  else fprintf(f, "%" PRIu32, thread);
}

static int fail(char *err, size_t errlen, const char *path, unsigned line, const char *what) {
  snprintf(err, errlen, "plan file %s line %u: %s", path, line, what);
  return -1;
}

int st_plan_load(const char *path, struct st_plan *p, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  char *data;
  size_t len;
  if (st_read_file(path, ST_PLAN_BYTES_MAX, &data, &len) != 0) {
    snprintf(err, errlen, "cannot read plan file %s: %s", path, strerror(errno));
    return -1;
  }
  if (memchr(data, '\0', len)) {
    free(data);
    return fail(err, errlen, path, 1, "binary data: not a plan file");
  }
  size_t cap = 0;
  bool have_seed = false, have_end = false;
  unsigned line = 0;
  int rc = 0;
  for (char *l = data; rc == 0 && *l;) {
    char *nl = strchr(l, '\n');
    if (nl) *nl = '\0';
    line++;
    if (line == 1) {
      if (strcmp(l, PLAN_MAGIC)) rc = fail(err, errlen, path, line, "not a detsim plan (the first line must be '" PLAN_MAGIC "')");
    } else if (!strncmp(l, "# class=", 8)) {
      char cls[32];
      unsigned long long ev, h;
      if (sscanf(l, "# class=%31s events=%llu history=%llx", cls, &ev, &h) == 3) {
        snprintf(p->cls, sizeof p->cls, "%s", cls);
        p->events = ev;
        p->history = h;
        p->has_outcome = true;
      }
    } else if (!strncmp(l, "# replay: ", 10)) {
      free(p->replay);
      p->replay = st_xstrdup(l + 10);
    } else if (l[0] == '#' || l[0] == '\0') {
    } else if (have_end) {
      rc = fail(err, errlen, path, line, "text after the 'end' line");
    } else {
      uint64_t ev = 0;
      char *note = strchr(l, '#');
      if (note) {
        unsigned long long e;
        if (sscanf(note, "# event %llu", &e) == 1) ev = e;
        *note = '\0';
      }
      char w0[16], w1[32], w2[32], w3[32], extra[2];
      int k = sscanf(l, "%15s %31s %31s %31s %1s", w0, w1, w2, w3, extra);
      uint64_t a = 0, b = 0;
      int32_t pa = 0, pc = 0;
      uint32_t ta = 0, tc = 0;
      uint16_t ia = 0;
      if (k == 2 && !strcmp(w0, "seed") && st_parse_u64(w1, &a)) {
        p->seed = a;
        have_seed = true;
      } else if (k == 2 && !strcmp(w0, "end") && st_parse_u64(w1, &a)) {
        if (a != p->n) rc = fail(err, errlen, path, line, "the entry count does not match 'end' (a truncated or edited file)");
        have_end = true;
      } else if (k == 4 && (!strcmp(w0, "switch") || !strcmp(w0, "wake")) && parse_thread(w1, &pa, &ta, &ia) &&
                 st_parse_u64(w2, &b) && parse_thread(w3, &pc, &tc, NULL)) {
        if (!have_seed) rc = fail(err, errlen, path, line, "an entry before the 'seed' line");
        else {
          if (p->n == cap) {
            cap = cap ? cap * 2 : 64;
            p->entries = st_xrealloc(p->entries, cap * sizeof *p->entries);
          }
          p->entries[p->n++] = (struct st_plan_entry){ .thread = ta, .step = b, .chosen = tc, .pid = pa,
                                                       .image = ia, .chosen_pid = pc, .wake = w0[0] == 'w', .event = ev };
        }
      } else {
        rc = fail(err, errlen, path, line, "expected 'seed N', 'switch THREAD STEP TO', 'wake THREAD STEP TO' or 'end COUNT' (a thread is T, PID:T, or PID.I:T for the deciding thread after its process's I-th exec)");
      }
    }
    if (!nl) break;
    l = nl + 1;
  }
  free(data);
  if (rc == 0 && line == 0) rc = fail(err, errlen, path, 1, "empty file");
  if (rc == 0 && !have_seed) rc = fail(err, errlen, path, line, "no 'seed' line");
  if (rc == 0 && !have_end) rc = fail(err, errlen, path, line, "no 'end' line (a truncated file)");
  if (rc) st_plan_free(p);
  return rc;
}

int st_plan_write(const char *path, const struct st_plan *p, const bool *keep, const char *const *comments, int ncomments) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, PLAN_MAGIC "\n");
  for (int i = 0; i < ncomments; i++)
    if (comments[i]) fprintf(f, "# %s\n", comments[i]);
  fprintf(f, "seed %" PRIu64 "\n", p->seed);
  size_t kept = 0;
  for (size_t i = 0; i < p->n; i++) {
    if (keep && !keep[i]) continue;
    const struct st_plan_entry *e = &p->entries[i];
    fprintf(f, "%s ", e->wake ? "wake" : "switch");
    print_thread(f, e->pid, e->image, e->thread);
    fprintf(f, " %" PRIu64 " ", e->step);
    print_thread(f, e->chosen_pid, 0, e->chosen);
    if (e->event) fprintf(f, " # event %" PRIu64, e->event);
    fputc('\n', f);
    kept++;
  }
  fprintf(f, "end %zu\n", kept);
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) return -1;
  return 0;
}

void st_plan_free(struct st_plan *p) {
  free(p->entries);
  free(p->replay);
  memset(p, 0, sizeof *p);
}
