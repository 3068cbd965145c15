/* Schedule plans (trace/trace.h): loading plan=, answering the scheduler's
 * decision points from it, recording plan_out= and writing it. */
#include "trace/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "limits.h"
#include "core/core.h"
#include "sched/sched.h"

struct plan_entry {
  uint64_t step;
  uint64_t event; /* recording only: the global event, for people */
  uint32_t thread, chosen;
  uint32_t kind;
};

static const char *const kind_names[] = { [DETSIM_PLAN_SWITCH] = "switch", [DETSIM_PLAN_WAKE] = "wake" };

/* The plan being replayed, sorted by thread then step; each thread's
 * entries are consumed in order by its own cursor. */
static struct plan_entry replay[DETSIM_PLAN_ENTRIES_MAX];
static size_t replay_len;
static uint32_t thread_next[DETSIM_MAX_THREADS_CREATED + 2]; /* cursor per thread */
static uint32_t thread_end[DETSIM_MAX_THREADS_CREATED + 2];
bool detsim__plan_replaying;

/* The decisions of this run (plan_out). */
static struct plan_entry record[DETSIM_PLAN_ENTRIES_MAX];
static size_t record_len;
static bool record_overflow;
static int written;

static int by_thread_step(const void *pa, const void *pb) {
  const struct plan_entry *a = pa, *b = pb;
  if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  return a->event < b->event ? -1 : a->event > b->event;
}

static int parse_error(char *err, size_t errlen, const char *path, unsigned line, const char *what) {
  snprintf(err, errlen, "DETSIM_OPTIONS: plan file %s line %u: %s", path, line, what);
  return -1;
}

static bool parse_u64(const char *s, uint64_t *out) {
  if (*s < '0' || *s > '9') return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

int detsim__plan_load(const char *path, uint64_t seed, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "DETSIM_OPTIONS: cannot read plan file %s: %s", path, strerror(errno));
    return -1;
  }
  char buf[256];
  unsigned line = 0;
  bool have_magic = false, have_seed = false, have_end = false;
  int rc = 0;
  while (rc == 0 && fgets(buf, sizeof buf, f)) {
    line++;
    size_t n = strlen(buf);
    if (n == sizeof buf - 1 && buf[n - 1] != '\n') { rc = parse_error(err, errlen, path, line, "line too long"); break; }
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = '\0';
    if (line == 1) {
      if (strcmp(buf, "# detsim plan 1") != 0) {
        rc = parse_error(err, errlen, path, line, "not a detsim plan (the first line must be '# detsim plan 1')");
        break;
      }
      have_magic = true;
      continue;
    }
    if (buf[0] == '#' || buf[0] == '\0') continue;
    char *comment = strchr(buf, '#');
    if (comment) *comment = '\0';
    if (have_end) { rc = parse_error(err, errlen, path, line, "text after the 'end' line"); break; }
    char w0[16], w1[32], w2[32], w3[32], extra[2];
    int k = sscanf(buf, "%15s %31s %31s %31s %1s", w0, w1, w2, w3, extra);
    uint64_t a = 0, b = 0, c = 0;
    if (!strcmp(w0, "seed") && k == 2 && parse_u64(w1, &a)) {
      if (a != seed) {
        char what[128];
        snprintf(what, sizeof what, "the plan is for seed %" PRIu64 ", but this run's DETSIM_SEED is %" PRIu64, a, seed);
        rc = parse_error(err, errlen, path, line, what);
      }
      have_seed = true;
    } else if (!strcmp(w0, "end") && k == 2 && parse_u64(w1, &a)) {
      if (a != replay_len) rc = parse_error(err, errlen, path, line, "the entry count does not match 'end' (a truncated or edited file)");
      have_end = true;
    } else if ((!strcmp(w0, "switch") || !strcmp(w0, "wake")) && k == 4 && parse_u64(w1, &a) && parse_u64(w2, &b) &&
               parse_u64(w3, &c) && a >= 1 && a <= DETSIM_MAX_THREADS_CREATED && c >= 1 &&
               c <= DETSIM_MAX_THREADS_CREATED) {
      if (!have_seed) { rc = parse_error(err, errlen, path, line, "an entry before the 'seed' line"); break; }
      if (replay_len == DETSIM_PLAN_ENTRIES_MAX) {
        char what[96];
        snprintf(what, sizeof what, "more than %u entries (limit plan_entries)", DETSIM_PLAN_ENTRIES_MAX);
        rc = parse_error(err, errlen, path, line, what);
        break;
      }
      replay[replay_len++] = (struct plan_entry){ .thread = (uint32_t)a, .step = b, .chosen = (uint32_t)c,
                                                  .kind = w0[0] == 's' ? DETSIM_PLAN_SWITCH : DETSIM_PLAN_WAKE,
                                                  .event = line };
    } else {
      rc = parse_error(err, errlen, path, line,
                       "expected 'seed N', 'switch THREAD STEP TO', 'wake THREAD STEP TO' or 'end COUNT'");
    }
  }
  if (rc == 0 && ferror(f)) rc = parse_error(err, errlen, path, line, strerror(errno));
  fclose(f);
  if (rc) return rc;
  if (!have_magic) return parse_error(err, errlen, path, 1, "empty file");
  if (!have_seed) return parse_error(err, errlen, path, line, "no 'seed' line");
  if (!have_end) return parse_error(err, errlen, path, line, "no 'end' line (a truncated file)");
  /* By thread, then step; the file's order (kept in .event) breaks ties. */
  qsort(replay, replay_len, sizeof *replay, by_thread_step);
  for (size_t i = replay_len; i-- > 0;) thread_next[replay[i].thread] = (uint32_t)i;
  for (size_t i = 0; i < replay_len; i++) thread_end[replay[i].thread] = (uint32_t)i + 1;
  detsim__plan_replaying = true;
  return 0;
}

uint32_t detsim__plan_take(uint32_t thread, uint64_t step, enum detsim_plan_kind kind) {
  if (thread > DETSIM_MAX_THREADS_CREATED) return 0;
  uint32_t i = thread_next[thread], end = thread_end[thread];
  /* Entries whose step has passed without a decision there (this thread
   * took another path) are dropped. */
  while (i < end && replay[i].step < step) i++;
  uint32_t chosen = 0;
  if (i < end && replay[i].step == step && replay[i].kind == kind) chosen = replay[i++].chosen;
  thread_next[thread] = i;
  return chosen;
}

void detsim__plan_record(uint32_t thread, uint64_t step, enum detsim_plan_kind kind, uint32_t chosen) {
  if (!detsim__opt.plan_out[0]) return;
  if (record_len == DETSIM_PLAN_ENTRIES_MAX) {
    record_overflow = true;
    return;
  }
  record[record_len++] = (struct plan_entry){ .thread = thread, .step = step, .chosen = chosen, .kind = kind,
                                              .event = detsim__event_count() };
}

/* Appends text to a fixed buffer, flushing it to fd when full: snprintf
 * into a stack buffer and write(2), usable from the crash handler. */
struct out {
  int fd;
  size_t len;
  char buf[4096];
  bool failed;
};

static void out_flush(struct out *o) {
  size_t off = 0;
  while (off < o->len) {
    ssize_t k = write(o->fd, o->buf + off, o->len - off);
    if (k <= 0) {
      o->failed = true;
      break;
    }
    off += (size_t)k;
  }
  o->len = 0;
}

static void out_line(struct out *o, const char *line, size_t n) {
  if (o->len + n > sizeof o->buf) out_flush(o);
  memcpy(o->buf + o->len, line, n);
  o->len += n;
}

void detsim__plan_write_out(const char *class_name, uint64_t events, uint64_t history) {
  const char *path = detsim__opt.plan_out;
  if (!path[0] || __atomic_exchange_n(&written, 1, __ATOMIC_ACQ_REL)) return;
  if (record_overflow) {
    detsim__msg("plan_out: not written: the run took more than %u decisions (limit plan_entries)", DETSIM_PLAN_ENTRIES_MAX);
    return;
  }
  struct out o = { .fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) };
  if (o.fd < 0) {
    detsim__msg("plan_out: cannot write %s: %s", path, strerror(errno));
    return;
  }
  char line[256];
  int n = snprintf(line, sizeof line, "# detsim plan 1\n# class=%s events=%" PRIu64 " history=%016" PRIx64 "\nseed %" PRIu64 "\n",
                   class_name, events, history, detsim__seed());
  out_line(&o, line, (size_t)n);
  for (size_t i = 0; i < record_len; i++) {
    n = snprintf(line, sizeof line, "%s %" PRIu32 " %" PRIu64 " %" PRIu32 " # event %" PRIu64 "\n",
                 kind_names[record[i].kind], record[i].thread, record[i].step, record[i].chosen, record[i].event);
    out_line(&o, line, (size_t)n);
  }
  n = snprintf(line, sizeof line, "end %zu\n", record_len);
  out_line(&o, line, (size_t)n);
  out_flush(&o);
  close(o.fd);
  if (o.failed) detsim__msg("plan_out: writing %s failed", path);
}
