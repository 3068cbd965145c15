/* A run's own world's trace: every process's part merged by event number
 * (world.h), as simworld merges a scenario's (tools/simworld/trace_merge.c).
 *
 * Each process of a run that forked records the events it makes in a ring
 * of its own and writes them to a part, <trace>.<K>.pid<pid>.<incarnation>
 * (K: the first process's kernel pid, so that two runs of one seed in one
 * directory keep apart), when it leaves the world (an exit, an exec) and
 * when the first process asks at a failing end.  The first process then
 * merges the parts into the run's trace, each thread named with its
 * process's pid (T1@1001), and removes them; at an end that wants no
 * trace it only removes them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "intercept/intercept.h"
#include "limits.h"
#include "trace/trace.h"
#include "world/world.h"
#include "world_trace_part.h"

#define S detsim__ws

void detsim__world_trace_solo_begin(void) {
  char buf[DETSIM_PATH_BYTES_MAX + 32], cwd[PATH_MAX];
  const char *path = detsim__trace_path(buf, sizeof buf);
  S->trace_file[0] = '\0';
  if (path == NULL) return;
  /* A process may change its directory: the parts' names are absolute. */
  if (path[0] == '/') snprintf(S->trace_file, sizeof S->trace_file, "%s", path);
  else if (getcwd(cwd, sizeof cwd) != NULL) snprintf(S->trace_file, sizeof S->trace_file, "%s/%s", cwd, path);
}

/* The directory of the parts and the start of their names. */
static void split_prefix(char *dir, size_t dn, char *name, size_t nn) {
  char prefix[DETSIM_WORLD_TRACE_PATH_BYTES + 32];
  snprintf(prefix, sizeof prefix, "%s.%d.pid", S->trace_file, (int)S->nodes[0].pid);
  const char *slash = strrchr(prefix, '/');
  snprintf(dir, dn, "%.*s", slash ? (int)(slash - prefix) : 1, slash ? prefix : ".");
  if (dir[0] == '\0') snprintf(dir, dn, "/");
  snprintf(name, nn, "%s", slash ? slash + 1 : prefix);
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

struct part {
  char *data;
  size_t len;
  int pid;
  uint32_t n_sites;
  struct site *sites; /* by pc */
  const struct detsim_part_record *records;
  uint32_t n_records;
  uint64_t ring;
};

struct ref {
  uint64_t n;
  uint32_t part, record;
};

static int by_event(const void *a, const void *b) {
  uint64_t x = ((const struct ref *)a)->n, y = ((const struct ref *)b)->n;
  return x < y ? -1 : x > y;
}

static int by_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Reads a part; false when it is not one (a message says so). */
static bool read_part(const char *path, int pid, struct part *p) {
  memset(p, 0, sizeof *p);
  p->pid = pid;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (fd >= 0) close(fd);
    return false;
  }
  p->data = malloc((size_t)st.st_size + 1);
  size_t got = 0;
  while (p->data && got < (size_t)st.st_size) {
    ssize_t k = read(fd, p->data + got, (size_t)st.st_size - got);
    if (k <= 0) break;
    got += (size_t)k;
  }
  close(fd);
  p->len = got;
  struct detsim_part_header h;
  if (p->data == NULL || got < sizeof h || memcmp(p->data, DETSIM_PART_MAGIC, 8) != 0) goto bad;
  memcpy(&h, p->data, sizeof h);
  size_t off = sizeof h;
  p->sites = calloc((size_t)h.n_sites + 1, sizeof *p->sites);
  if (p->sites == NULL) goto bad;
  for (uint32_t i = 0; i < h.n_sites; i++) {
    if (off + 12 > got) goto bad;
    memcpy(&p->sites[i].pc, p->data + off, 8);
    memcpy(&p->sites[i].len, p->data + off + 8, 4);
    p->sites[i].text = p->data + off + 12;
    off += 12 + p->sites[i].len;
    if (off > got) goto bad;
  }
  qsort(p->sites, h.n_sites, sizeof *p->sites, by_pc);
  if (off > got || (got - off) / sizeof(struct detsim_part_record) < h.n_records) goto bad;
  p->n_sites = h.n_sites;
  p->records = (const struct detsim_part_record *)(p->data + off);
  p->n_records = h.n_records;
  p->ring = h.ring;
  return true;
bad:
  detsim__msg("warning: %s is not a readable trace part: left out of the run's trace", path);
  free(p->data);
  free(p->sites);
  p->data = NULL;
  p->sites = NULL;
  return false;
}

/* A record's call site as its part named it ("" when none). */
static const char *site_of(const struct part *p, uint64_t pc, uint32_t *len) {
  struct site key = { pc, NULL, 0 };
  const struct site *st = pc ? bsearch(&key, p->sites, p->n_sites, sizeof *p->sites, by_pc) : NULL;
  *len = st ? st->len : 0;
  return st ? st->text : "";
}


/* Every other live process of the world writes its part now (its
 * dispatcher's handler, world.c); waits until they all did, or a while. */
static void ask_parts(void) {
  uint32_t before = __atomic_load_n(&S->dumps_done, __ATOMIC_ACQUIRE), asked = 0;
  int32_t ender = __atomic_load_n(&S->ended, __ATOMIC_ACQUIRE) ? S->end_node : -1;
  for (unsigned j = 1; j < S->n_nodes; j++) {
    const struct detsim_world_node *n = &S->nodes[j];
    /* The process that ended the run wrote its part before it said so. */
    if ((int32_t)j == ender || S->exec_outside[j]) continue;
    if (n->pid > 0 && __atomic_load_n(&n->state, __ATOMIC_ACQUIRE) == DETSIM_NODE_READY &&
        REAL(kill)(n->pid, DETSIM_WORLD_DUMP_SIGNAL) == 0)
      asked++;
  }
  for (int waited = 0; waited < DETSIM_TRACE_PARTS_WAIT_MS; waited += 10) {
    uint32_t done = __atomic_load_n(&S->dumps_done, __ATOMIC_ACQUIRE);
    if (done - before >= asked) return;
    struct timespec ts = { 0, 10 * 1000000 };
    REAL(syscall)(SYS_futex, &S->dumps_done, FUTEX_WAIT, done, &ts, NULL, 0);
  }
  detsim__msg("warning: not every process of the run wrote its trace part in time: the trace misses their events");
}

/* Calls fn for each part of this run (its path, the pid in its name). */
static void each_part(void (*fn)(void *ctx, const char *path, int pid), void *ctx) {
  char dir[DETSIM_WORLD_TRACE_PATH_BYTES], name[DETSIM_WORLD_TRACE_PATH_BYTES + 32];
  split_prefix(dir, sizeof dir, name, sizeof name);
  size_t nl = strlen(name);
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    if (strncmp(e->d_name, name, nl) != 0) continue;
    char path[DETSIM_WORLD_TRACE_PATH_BYTES + 300];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    fn(ctx, path, atoi(e->d_name + nl));
  }
  if (d) closedir(d);
}

struct gather {
  struct part *parts;
  size_t n, cap;
};

static void gather_one(void *ctx, const char *path, int pid) {
  struct gather *g = ctx;
  if (g->n == g->cap) {
    size_t cap = g->cap ? g->cap * 2 : 16;
    struct part *p = realloc(g->parts, cap * sizeof *p);
    if (p == NULL) return;
    g->parts = p;
    g->cap = cap;
  }
  if (read_part(path, pid, &g->parts[g->n])) g->n++;
  unlink(path);
}

static void remove_one(void *ctx, const char *path, int pid) {
  (void)ctx;
  (void)pid;
  unlink(path);
}

void detsim__world_trace_parts_remove(void) {
  if (S == NULL || !detsim__world_solo || S->trace_file[0] == '\0') return;
  each_part(remove_one, NULL);
}

/* The merged trace's lines, from sorted references. */
static int write_merged(int fd, const struct gather *g, const struct ref *refs, size_t n_refs) {
  static char out[64 * 1024];
  char line[640];
  size_t used = 0;
  for (size_t i = 0; i < n_refs; i++) {
    if (i > 0 && refs[i].n == refs[i - 1].n) continue; /* never: each event has one process */
    const struct part *p = &g->parts[refs[i].part];
    const struct detsim_part_record *r = &p->records[refs[i].record];
    char who[24];
    snprintf(who, sizeof who, "@%d", p->pid);
    uint32_t site_len;
    const char *site = site_of(p, r->pc, &site_len);
    int k = snprintf(line, sizeof line, DETSIM_TRACE_LINE_FORMAT, r->n, r->time_ns / UINT64_C(1000000000),
                     r->time_ns % UINT64_C(1000000000), (unsigned)r->tid, who,
                     detsim__event_name((enum detsim_event_kind)r->kind), r->obj, r->aux, (int)site_len, site);
    if (k <= 0) continue;
    size_t len = (size_t)k < sizeof line ? (size_t)k : sizeof line - 1;
    if (used + len > sizeof out) {
      if (!detsim__write_all(fd, out, used)) return -1;
      used = 0;
    }
    memcpy(out + used, line, len);
    used += len;
  }
  return used && !detsim__write_all(fd, out, used) ? -1 : 0;
}

int detsim__world_trace_merge(void) {
  if (!detsim__world_solo || S->trace_file[0] == '\0') return -1;
  detsim__world_trace_part(); /* this process's own */
  ask_parts();
  struct gather g = { NULL, 0, 0 };
  each_part(gather_one, &g);
  size_t n_refs = 0;
  for (size_t i = 0; i < g.n; i++) n_refs += g.parts[i].n_records;
  struct ref *refs = malloc((n_refs ? n_refs : 1) * sizeof *refs);
  int pids[DETSIM_WORLD_NODES_MAX * 4];
  size_t n_pids = 0;
  uint64_t ring = 0;
  int rc = refs ? 0 : -1;
  for (size_t i = 0, k = 0; refs && i < g.n; i++) {
    for (uint32_t j = 0; j < g.parts[i].n_records; j++) refs[k++] = (struct ref){ g.parts[i].records[j].n, (uint32_t)i, j };
    if (g.parts[i].ring > ring) ring = g.parts[i].ring;
    bool seen = false;
    for (size_t q = 0; q < n_pids; q++) seen |= pids[q] == g.parts[i].pid;
    if (!seen && n_pids < sizeof pids / sizeof pids[0]) pids[n_pids++] = g.parts[i].pid;
  }
  if (rc == 0 && n_refs == 0) rc = -1;
  if (rc == 0) {
    qsort(refs, n_refs, sizeof *refs, by_event);
    qsort(pids, n_pids, sizeof pids[0], by_int);
    int fd = open(S->trace_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) rc = -1;
    else {
      uint64_t first = refs[0].n;
      dprintf(fd, DETSIM_TRACE_HEADER_FORMAT, first, refs[n_refs - 1].n, detsim__events(),
              DETSIM_TRACE_HEADER_DROPPED(first), ring);
      dprintf(fd, "# world: processes=");
      for (size_t q = 0; q < n_pids; q++) dprintf(fd, "%s%d", q ? "," : "", pids[q]);
      dprintf(fd, " (each event as its process recorded it; what none kept, a process's that died outside the "
                  "simulation or older than a ring, is missing)\n");
      detsim__trace_write_identity(fd);
      dprintf(fd, "# event time(s) thread@pid kind object value site\n");
      if (write_merged(fd, &g, refs, n_refs) != 0) rc = -1;
      if (close(fd) != 0) rc = -1;
    }
  }
  if (rc != 0) detsim__msg("warning: cannot write the run's trace %s: %s", S->trace_file, strerror(errno));
  for (size_t i = 0; i < g.n; i++) {
    free(g.parts[i].data);
    free(g.parts[i].sites);
  }
  free(g.parts);
  free(refs);
  return rc;
}
