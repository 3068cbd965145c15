/* The history hash and the trace ring.
 *
 * Called on every event by the baton holder only, so it needs no locking;
 * the fast path is a hash fold and one 32-byte store.
 */
#include "trace/trace.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/core.h"
#include "time/time.h"
#include "limits.h"
#include "sched/sched.h"
#include "world/world.h"
#include "world_trace_part.h"

static const char *const event_names[DETSIM_EV_COUNT] = {
#define DETSIM_EVENT(name, desc) #name,
#include "events.inc"
#undef DETSIM_EVENT
};

struct detsim_trace_state detsim__trace = { NULL, 0, 0, DETSIM_HISTORY_START, 0 };
#define T detsim__trace

const char *detsim__event_name(enum detsim_event_kind kind) {
  return (unsigned)kind < DETSIM_EV_COUNT ? event_names[kind] : "?";
}

void detsim__trace_init(uint64_t capacity) {
  uint64_t cap = 16;
  while (cap < capacity) cap <<= 1;
  /* mmap rather than malloc: the ring is large and must not perturb the
   * program's heap layout. */
  void *p = mmap(NULL, cap * sizeof *T.ring, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  CHECK(p != MAP_FAILED);
  T.ring = p;
  T.mask = cap - 1;
  T.shift = (unsigned)__builtin_ctzll(cap);
}

uint64_t detsim__history_hash(void) {
  /* Finalize so that the printed value depends on every bit of the state. */
  uint64_t h = T.hash ^ T.events;
  h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
  h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

uint64_t detsim__events(void) { return T.events; }

void detsim__history_get(uint64_t *events, uint64_t *hash) {
  *events = T.events;
  *hash = T.hash;
}

void detsim__history_set(uint64_t events, uint64_t hash) {
  T.events = events;
  T.hash = hash;
}

/* One record as a line: event number, virtual time, thread, event, object,
 * value, call site (function+offset when the symbol is known). */
/* A trace names few distinct sites many times: their text is cached
 * (direct-mapped on the pc), so writing a long trace costs one dladdr per
 * distinct site, not per record. */
#define SITE_CACHE_SLOTS 1024
#define SITE_TEXT_BYTES 160
static struct {
  uintptr_t pc;
  char text[SITE_TEXT_BYTES];
} site_cache[SITE_CACHE_SLOTS];

const char *detsim__site_text(uintptr_t pc) {
  if (!pc) return "";
  unsigned slot = (unsigned)((pc ^ (pc >> 12)) & (SITE_CACHE_SLOTS - 1));
  if (site_cache[slot].pc == pc) return site_cache[slot].text;
  char *site = site_cache[slot].text;
  site[0] = '\0';
  Dl_info info;
  if (dladdr((void *)pc, &info) && info.dli_fname) {
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (info.dli_sname)
      snprintf(site, SITE_TEXT_BYTES, " at %s+0x%" PRIxPTR " (%s)", info.dli_sname, pc - (uintptr_t)info.dli_saddr,
               base);
    else
      snprintf(site, SITE_TEXT_BYTES, " at %s+0x%" PRIxPTR, base, pc - (uintptr_t)info.dli_fbase);
  }
  site_cache[slot].pc = pc;
  return site;
}

/* In a world a thread is named with its node (T3@kv2), and in a process
 * forked on a node with its pid too (T1@kv2/1003): thread ids are per
 * process, and a world's merged trace holds every node's. */
static int format_record(char *buf, size_t len, uint64_t n, const struct detsim_trace_record *r) {
  const char *site = detsim__site_text((uintptr_t)r->pc);
  char node[DETSIM_WORLD_NAME_BYTES + 16] = "";
  const struct detsim_world_node *me = detsim__world_hosts() ? &detsim__ws->nodes[detsim__node_index] : NULL;
  if (me && me->host1) snprintf(node, sizeof node, "@%.*s/%d", DETSIM_WORLD_NAME_BYTES, me->name, (int)me->vpid);
  else if (me) snprintf(node, sizeof node, "@%.*s", DETSIM_WORLD_NAME_BYTES, me->name);
  return snprintf(buf, len, DETSIM_TRACE_LINE_FORMAT, n, r->time_ns / UINT64_C(1000000000),
                  r->time_ns % UINT64_C(1000000000), r->tid, node, detsim__event_name((enum detsim_event_kind)r->kind),
                  r->obj, r->aux, (int)strlen(site), site);
}

/* Appends `arg` to line[used..cap) as a shell word (quoted when it needs
 * it, as the first line quotes it); returns the new length. */
static size_t append_word(char *line, size_t used, size_t cap, const char *arg) {
  bool plain = arg[0] != '\0';
  for (const char *p = arg; *p; p++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%", *p)) plain = false;
  if (used + 1 < cap) line[used++] = ' ';
  if (!plain && used + 1 < cap) line[used++] = '\'';
  for (const char *p = arg; *p && used + 5 < cap; p++) {
    if (!plain && *p == '\'') {
      memcpy(line + used, "'\\''", 4);
      used += 4;
    } else {
      line[used++] = *p;
    }
  }
  if (!plain && used + 1 < cap) line[used++] = '\'';
  line[used] = '\0';
  return used;
}

/* The header lines that make a trace file self-describing, so that
 * `simreplay FILE` can replay it with nothing else:
 *   # seed=<seed> events=<n> history=<16 hex>     (as on the result line)
 *   # replay: DETSIM_SEED=<seed> [DETSIM_OPTIONS=<options>] <command line>
 * The command line is read back from /proc/self/cmdline. */
void detsim__trace_write_identity(int fd) {
  dprintf(fd, "# seed=%" PRIu64 " events=%" PRIu64 " history=%016" PRIx64 "\n", detsim__seed(), T.events,
          detsim__history_hash());
  char line[DETSIM_CMDLINE_BYTES_MAX + 256];
  size_t used = (size_t)snprintf(line, sizeof line, "# replay: DETSIM_SEED=%" PRIu64, detsim__seed());
  const char *options = getenv("DETSIM_OPTIONS");
  if (options && options[0]) {
    char opt[DETSIM_CMDLINE_BYTES_MAX];
    snprintf(opt, sizeof opt, "DETSIM_OPTIONS=%s", options);
    used = append_word(line, used, sizeof line - 1, opt);
  }
  char args[DETSIM_CMDLINE_BYTES_MAX];
  ssize_t n = 0;
  int cfd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (cfd >= 0) {
    n = read(cfd, args, sizeof args - 1);
    close(cfd);
  }
  if (n < 0) n = 0;
  args[n] = '\0';
  for (char *a = args; a < args + n; a += strlen(a) + 1) used = append_word(line, used, sizeof line - 1, a);
  line[used++] = '\n';
  if (write(fd, line, used) < 0) return;
}


int detsim__trace_write(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  char line[512];
  uint64_t first = detsim__trace_first_kept();
  dprintf(fd, DETSIM_TRACE_HEADER_FORMAT, first, T.events ? T.events - 1 : 0, T.events, DETSIM_TRACE_HEADER_DROPPED(first),
          (uint64_t)(T.mask + 1));
  detsim__trace_write_identity(fd);
  dprintf(fd, "# event time(s) thread kind object value site\n");
  /* Records go out in 64 KiB writes. */
  static char out[64 * 1024];
  size_t used = 0;
  int rc = 0;
  for (uint64_t n = first; n < T.events && rc == 0; n++) {
    if (!detsim__trace_holds(n)) continue;
    int k = format_record(line, sizeof line, n, &T.ring[n & T.mask]);
    if (k <= 0) continue;
    size_t len = (size_t)k < sizeof line ? (size_t)k : sizeof line - 1;
    if (used + len > sizeof out) {
      if (!detsim__write_all(fd, out, used)) rc = -1;
      used = 0;
    }
    memcpy(out + used, line, len);
    used += len;
  }
  if (rc == 0 && used && !detsim__write_all(fd, out, used)) rc = -1;
  close(fd);
  return rc;
}

void detsim__trace_print_tail(int fd, unsigned count) {
  uint64_t first = detsim__trace_first_kept();
  /* The last `count` records this process wrote. */
  uint64_t start = T.events;
  for (unsigned found = 0; start > first && found < count;) {
    start--;
    if (detsim__trace_holds(start)) found++;
  }
  char line[512];
  /* Up to the end as it is now: a write below that became an event (it
   * must not, but if it did) would otherwise be printed too, and so on. */
  uint64_t end = T.events;
  for (uint64_t n = start; n < end; n++) {
    if (!detsim__trace_holds(n)) continue;
    int k = format_record(line, sizeof line, n, &T.ring[n & T.mask]);
    if (k > 0 && write(fd, "detsim: | ", 10) >= 0 &&
        write(fd, line, (size_t)k < sizeof line ? (size_t)k : sizeof line - 1) < 0)
      break;
  }
}
