/* Schedule plans (trace/trace.h): loading plan=, answering the scheduler's
 * decision points from it, recording plan_out= and writing it. */
#include "trace/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "limits.h"
#include "core/core.h"
#include "intercept/intercept.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "world/world.h"

struct plan_entry {
  uint64_t step;
  uint64_t event; /* recording only: the global event, for people */
  uint32_t thread, chosen;
  uint16_t kind;
  /* The deciding process's image: its count of execs so far.  A new image
   * numbers its threads and their steps from the start again, so its
   * decisions are its own (PID.I:T); the chosen thread is of the chosen
   * process's image at that moment, which the run itself tells. */
  uint16_t image;
  int32_t pid, chosen_pid; /* the deciding and the chosen process */
};

_Static_assert(sizeof(struct plan_entry) == 40, "limits.h names an entry's size");

static const char *const kind_names[] = { [DETSIM_PLAN_SWITCH] = "switch", [DETSIM_PLAN_WAKE] = "wake" };

/* The plan being replayed, sorted by process, thread, then step; each
 * thread's entries are consumed in order by its own cursor (this
 * process's: a forked child sets its own up at its first decision). */
static struct plan_entry replay[DETSIM_PLAN_ENTRIES_MAX];
static size_t replay_len;
static uint32_t thread_next[DETSIM_MAX_THREADS_CREATED + 2]; /* cursor per thread */
static uint32_t thread_end[DETSIM_MAX_THREADS_CREATED + 2];
static int32_t cursors_pid;
static uint32_t cursors_image;
bool detsim__plan_replaying;
/* The processes the plan names, and whether the run made each (in the
 * world's region from the first fork). */
static int32_t plan_pids[DETSIM_PLAN_PIDS_MAX];
static unsigned n_plan_pids;
static uint8_t own_seen[DETSIM_PLAN_PIDS_MAX];
static uint8_t *pids_seen = own_seen;
static const char *replay_path;

/* The decisions of this run (plan_out): this process's until its first
 * fork, then the world's. */
static struct plan_entry own_record[DETSIM_PLAN_ENTRIES_MAX];
static struct plan_entry *record = own_record;
static uint64_t own_record_len;
static uint64_t *record_len = &own_record_len;
static uint32_t own_overflow;
static uint32_t *record_overflow = &own_overflow;
static int written;

static int by_thread_step(const void *pa, const void *pb) {
  const struct plan_entry *a = pa, *b = pb;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  if (a->image != b->image) return a->image < b->image ? -1 : 1;
  if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  return a->event < b->event ? -1 : a->event > b->event;
}

static int parse_error(char *err, size_t errlen, const char *path, unsigned line, const char *what) {
  snprintf(err, errlen, "DETSIM_OPTIONS: plan file %s line %u: %s", path, line, what);
  return -1;
}

static bool parse_u64(const char *s, uint64_t *out);

/* A thread as a plan names it: T (of the first process), PID:T, or
 * PID.I:T for a thread of the process's image after its I-th exec; T may
 * be 0 (a process's dispatcher, or the process) only with a pid.  `image`
 * NULL: no image may be named (a chosen thread). */
static bool parse_thread(const char *s, int32_t *pid, uint32_t *thread, uint16_t *image) {
  uint64_t p = DETSIM_PID_FIRST, t, im = 0;
  const char *colon = strchr(s, ':');
  char num[32];
  if (colon) {
    size_t n = (size_t)(colon - s);
    if (n == 0 || n >= sizeof num) return false;
    memcpy(num, s, n);
    num[n] = '\0';
    char *dot = strchr(num, '.');
    if (dot) {
      *dot = '\0';
      if (image == NULL || !parse_u64(dot + 1, &im) || im == 0 || im > UINT16_MAX) return false;
    }
    if (!parse_u64(num, &p) || p < DETSIM_PID_FIRST || p > INT32_MAX) return false;
    s = colon + 1;
  }
  if (image) *image = (uint16_t)im;
  if (!parse_u64(s, &t) || t > DETSIM_MAX_THREADS_CREATED || (t == 0 && !colon)) return false;
  *pid = (int32_t)p;
  *thread = (uint32_t)t;
  return true;
}

static bool note_pid(int32_t pid) {
  for (unsigned i = 0; i < n_plan_pids; i++)
    if (plan_pids[i] == pid) return true;
  if (n_plan_pids == DETSIM_PLAN_PIDS_MAX) return false;
  plan_pids[n_plan_pids++] = pid;
  return true;
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
    uint64_t a = 0, b = 0;
    int32_t pa = 0, pc = 0;
    uint32_t ta = 0, tc = 0;
    uint16_t ia = 0;
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
    } else if ((!strcmp(w0, "switch") || !strcmp(w0, "wake")) && k == 4 && parse_thread(w1, &pa, &ta, &ia) &&
               parse_u64(w2, &b) && parse_thread(w3, &pc, &tc, NULL) && (w0[0] == 's' || (tc != 0 && pc == pa))) {
      if (!have_seed) { rc = parse_error(err, errlen, path, line, "an entry before the 'seed' line"); break; }
      if (!note_pid(pa) || !note_pid(pc)) {
        char what[96];
        snprintf(what, sizeof what, "more than %u processes named (limit plan_pids)", DETSIM_PLAN_PIDS_MAX);
        rc = parse_error(err, errlen, path, line, what);
        break;
      }
      if (replay_len == DETSIM_PLAN_ENTRIES_MAX) {
        char what[96];
        snprintf(what, sizeof what, "more than %u entries (limit plan_entries)", DETSIM_PLAN_ENTRIES_MAX);
        rc = parse_error(err, errlen, path, line, what);
        break;
      }
      replay[replay_len++] = (struct plan_entry){ .thread = ta, .step = b, .chosen = tc, .pid = pa, .chosen_pid = pc,
                                                  .image = ia,
                                                  .kind = w0[0] == 's' ? DETSIM_PLAN_SWITCH : DETSIM_PLAN_WAKE,
                                                  .event = line };
    } else {
      rc = parse_error(err, errlen, path, line,
                       "expected 'seed N', 'switch THREAD STEP TO', 'wake THREAD STEP TO' or 'end COUNT' (a thread "
                       "is T, or PID:T of the process PID, PID.I:T after its I-th exec for the deciding thread; a wake's "
                       "threads are of one process)");
    }
  }
  if (rc == 0 && ferror(f)) rc = parse_error(err, errlen, path, line, strerror(errno));
  fclose(f);
  if (rc) return rc;
  if (!have_magic) return parse_error(err, errlen, path, 1, "empty file");
  if (!have_seed) return parse_error(err, errlen, path, line, "no 'seed' line");
  if (!have_end) return parse_error(err, errlen, path, line, "no 'end' line (a truncated file)");
  /* By process, thread, then step; the file's order (kept in .event)
   * breaks ties. */
  qsort(replay, replay_len, sizeof *replay, by_thread_step);
  replay_path = strdup(path);
  cursors_pid = 0;
  detsim__plan_replaying = true;
  return 0;
}

/* This process's image: its execs so far (a world's slot counts its
 * images from 1). */
static uint32_t current_image(void) {
  if (!detsim__in_world || detsim__ws == NULL) return 0;
  uint32_t inc = detsim__ws->nodes[detsim__node_index].incarnation;
  return inc ? inc - 1 : 0;
}

/* Each thread's cursor over this process image's entries (a forked
 * child's are its own: the parent's were copied with its memory; a new
 * image starts its own). */
static void set_cursors(int32_t pid, uint32_t image) {
  memset(thread_next, 0, sizeof thread_next);
  memset(thread_end, 0, sizeof thread_end);
  for (size_t i = replay_len; i-- > 0;)
    if (replay[i].pid == pid && replay[i].image == image) thread_next[replay[i].thread] = (uint32_t)i;
  for (size_t i = 0; i < replay_len; i++)
    if (replay[i].pid == pid && replay[i].image == image) thread_end[replay[i].thread] = (uint32_t)i + 1;
  cursors_pid = pid;
  cursors_image = image;
}

bool detsim__plan_take_any(uint32_t thread, uint64_t step, enum detsim_plan_kind kind, int32_t *pid,
                           uint32_t *chosen) {
  if (thread > DETSIM_MAX_THREADS_CREATED) return false;
  int32_t me = (int32_t)detsim__proc_pid();
  uint32_t image = current_image();
  if (cursors_pid != me || cursors_image != image) set_cursors(me, image);
  uint32_t i = thread_next[thread], end = thread_end[thread];
  /* Entries whose step has passed without a decision there (this thread
   * took another path) are dropped. */
  while (i < end && replay[i].step < step) i++;
  bool found = false;
  if (i < end && replay[i].step == step && replay[i].kind == kind) {
    *pid = replay[i].chosen_pid;
    *chosen = replay[i].chosen;
    i++;
    found = true;
  }
  thread_next[thread] = i;
  return found;
}

uint32_t detsim__plan_take(uint32_t thread, uint64_t step, enum detsim_plan_kind kind) {
  int32_t pid;
  uint32_t chosen;
  if (!detsim__plan_take_any(thread, step, kind, &pid, &chosen)) return 0;
  return pid == (int32_t)detsim__proc_pid() ? chosen : 0;
}

void detsim__plan_record_any(uint32_t thread, uint64_t step, enum detsim_plan_kind kind, int32_t pid,
                             uint32_t chosen) {
  if (!detsim__opt.plan_out[0]) return;
  if (*record_len == DETSIM_PLAN_ENTRIES_MAX) {
    *record_overflow = 1;
    return;
  }
  uint32_t image = current_image();
  if (image > UINT16_MAX) {
    *record_overflow = 1;
    return;
  }
  record[(*record_len)++] = (struct plan_entry){ .thread = thread, .step = step, .chosen = chosen,
                                                 .kind = (uint16_t)kind, .image = (uint16_t)image,
                                                 .pid = (int32_t)detsim__proc_pid(), .chosen_pid = pid,
                                                 .event = detsim__event_count() };
}

void detsim__plan_record(uint32_t thread, uint64_t step, enum detsim_plan_kind kind, uint32_t chosen) {
  detsim__plan_record_any(thread, step, kind, (int32_t)detsim__proc_pid(), chosen);
}

bool detsim__plan_on(void) { return detsim__plan_replaying || detsim__opt.plan_out[0]; }

void detsim__plan_share(void) {
  struct detsim_world_shared *ws = detsim__ws;
  if (detsim__opt.plan_out[0]) {
    struct plan_entry *shared = detsim__net_malloc(sizeof(struct plan_entry) * DETSIM_PLAN_ENTRIES_MAX);
    memcpy(shared, record, sizeof(struct plan_entry) * (size_t)*record_len);
    ws->plan_record = shared;
    ws->plan_record_len = *record_len;
    ws->plan_record_overflow = *record_overflow;
    record = shared;
    record_len = &ws->plan_record_len;
    record_overflow = &ws->plan_record_overflow;
  }
  if (detsim__plan_replaying) {
    uint8_t *seen = detsim__net_malloc(DETSIM_PLAN_PIDS_MAX);
    memcpy(seen, pids_seen, DETSIM_PLAN_PIDS_MAX);
    ws->plan_pids_seen = seen;
    pids_seen = seen;
  }
}

void detsim__plan_attach_world(void) {
  struct detsim_world_shared *ws = detsim__ws;
  if (ws->plan_record != NULL) {
    record = ws->plan_record;
    record_len = &ws->plan_record_len;
    record_overflow = &ws->plan_record_overflow;
  }
  if (ws->plan_pids_seen != NULL) pids_seen = ws->plan_pids_seen;
}

void detsim__plan_process_made(int32_t pid) {
  for (unsigned i = 0; i < n_plan_pids; i++)
    if (plan_pids[i] == pid) pids_seen[i] = 1;
}

void detsim__plan_check_processes(void) {
  if (!detsim__plan_replaying) return;
  detsim__plan_process_made(DETSIM_PID_FIRST); /* the run's first process */
  for (unsigned i = 0; i < n_plan_pids; i++) {
    if (pids_seen[i]) continue;
    unsigned line = 0;
    for (size_t k = 0; k < replay_len && !line; k++)
      if (replay[k].pid == plan_pids[i] || replay[k].chosen_pid == plan_pids[i]) line = (unsigned)replay[k].event;
    detsim__msg("error: DETSIM_OPTIONS: plan file %s line %u: names process %d, which this run never had (a plan of "
                "another program or options?)", replay_path ? replay_path : "", line, (int)plan_pids[i]);
    REAL(syscall)(SYS_exit_group, DETSIM_EXIT_USAGE);
  }
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

/* T for a thread of the first process's first image, PID:T for any
 * other's, PID.I:T after the process's I-th exec. */
static void thread_name(char *out, size_t size, int32_t pid, uint32_t image, uint32_t thread) {
  if (image) snprintf(out, size, "%d.%" PRIu32 ":%" PRIu32, (int)pid, image, thread);
  else if (pid == DETSIM_PID_FIRST && thread != 0) snprintf(out, size, "%" PRIu32, thread);
  else snprintf(out, size, "%d:%" PRIu32, (int)pid, thread);
}

void detsim__plan_write_out(const char *class_name, uint64_t events, uint64_t history) {
  const char *path = detsim__opt.plan_out;
  if (!path[0] || __atomic_exchange_n(&written, 1, __ATOMIC_ACQ_REL)) return;
  if (*record_overflow) {
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
  for (size_t i = 0; i < *record_len; i++) {
    char who[32], whom[32];
    thread_name(who, sizeof who, record[i].pid, record[i].image, record[i].thread);
    thread_name(whom, sizeof whom, record[i].chosen_pid, 0, record[i].chosen);
    n = snprintf(line, sizeof line, "%s %s %" PRIu64 " %s # event %" PRIu64 "\n", kind_names[record[i].kind], who,
                 record[i].step, whom, record[i].event);
    out_line(&o, line, (size_t)n);
  }
  n = snprintf(line, sizeof line, "end %" PRIu64 "\n", *record_len);
  out_line(&o, line, (size_t)n);
  out_flush(&o);
  close(o.fd);
  if (o.failed) detsim__msg("plan_out: writing %s failed", path);
}
