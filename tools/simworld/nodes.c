/* The world's shared memory and the node processes: create, start one by
 * one, watch, end.
 *
 * Nodes start in scenario order, each waiting until the one before it is
 * parked in the world, so a seed's world always starts the same way.  A
 * node's stdout and stderr go to files in the log directory: its output is
 * its own, and the launcher's stderr keeps the contract's first and last
 * lines.
 */
#include "simworld.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stddef.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "st_limits.h"
#include "st_util.h"

extern char **environ;

/* How long a node may take to reach the world (its loader, constructors,
 * the re-execution without address randomization). */
#define NODE_START_S 30.0

struct detsim_world_shared *sw_world_create(const struct st_scenario *sc, uint64_t seed, int *fd_out) {
  int fd = memfd_create("detsim-world", 0); /* inherited by the nodes: no CLOEXEC */
  if (fd < 0) st_die(ST_EXIT_HARNESS, "cannot create the world's memory: %s", strerror(errno));
  if (ftruncate(fd, (off_t)DETSIM_WORLD_BYTES) != 0)
    st_die(ST_EXIT_HARNESS, "cannot size the world's memory: %s", strerror(errno));
  void *want = (void *)(uintptr_t)DETSIM_WORLD_ADDR;
  void *p = mmap(want, sizeof(struct detsim_world_shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
  if (p == MAP_FAILED) st_die(ST_EXIT_HARNESS, "cannot map the world's memory: %s", strerror(errno));
  struct detsim_world_shared *w = p;
  /* The choices bytes (a megabyte, last) stay untouched until loaded. */
  memset(w, 0, offsetof(struct detsim_world_shared, choices));
  w->magic = DETSIM_WORLD_MAGIC;
  w->version = DETSIM_WORLD_VERSION;
  w->n_nodes = sc->n_nodes;
  w->n_hosts = sc->n_nodes;
  w->launcher_pid = getpid();
  w->seed = seed;
  w->hash = DETSIM_HISTORY_START;
  w->end_node = -1;
  for (unsigned i = 0; i < sc->n_nodes; i++) {
    struct detsim_world_node *n = &w->nodes[i];
    snprintf(n->name, sizeof n->name, "%s", sc->nodes[i].name);
    n->client = sc->nodes[i].client;
    n->protect = sc->nodes[i].protect;
    n->after1 = sc->nodes[i].after1;
    n->wake_at = UINT64_MAX;
    n->posted_at = UINT64_MAX;
    n->parent = -1; /* a host's first process is nobody's child in the world */
    if (n->client) w->clients_live++;
  }
  *fd_out = fd;
  return w;
}

static void futex_wait_ms(uint32_t *word, uint32_t val, long ms) {
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* A node that cannot answer in this long (stopped in a debugger, say) is
 * not waited for. */
#define SW_DUMP_WAIT_MS 5000

static void wake_word(uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0); }

static char *log_path(const struct sw_run *r, unsigned i, const char *ext) {
  return st_xasprintf("%s/%s.%s", r->log_dir, r->sc->nodes[i].name, ext);
}

static void spawn(struct sw_run *r, unsigned i) {
  const struct st_scenario_node *node = &r->sc->nodes[i];
  char *out = log_path(r, i, "out"), *err = log_path(r, i, "err");
  char *world_env = st_xasprintf("%s=%d,%u", DETSIM_WORLD_ENV, r->fd, i);
  char *seed_env = st_xasprintf("DETSIM_SEED=%llu", (unsigned long long)r->seed);
  char *opt_env = st_xasprintf("DETSIM_OPTIONS=%s", r->node_options ? r->node_options : r->options);
  r->world->nodes[i].state = DETSIM_NODE_STARTING;
  r->world->nodes[i].wake = 0;
  r->world->nodes[i].kill_me = 0;
  r->world->nodes[i].incarnation++;
  r->world->nodes[i].boots++;
  pid_t pid = fork();
  if (pid < 0) st_die(ST_EXIT_HARNESS, "fork: %s", strerror(errno));
  if (pid == 0) {
    /* The node dies with the launcher, whatever ends it; it leads a real
     * process group of its own, which every process forked on it joins
     * (a simulated setsid or setpgid changes only the virtual ids), so
     * the host dies as one. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    setpgid(0, 0);
    int o = open(out, O_WRONLY | O_CREAT | O_APPEND, 0644);
    int e = open(err, O_WRONLY | O_CREAT | O_APPEND, 0644);
    int in = open("/dev/null", O_RDONLY);
    if (o < 0 || e < 0 || in < 0) _exit(127);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    putenv(world_env);
    putenv(seed_env);
    putenv(opt_env);
    for (unsigned k = 0; k < r->sc->n_env; k++) putenv(r->sc->env[k]);
    if (chdir(r->node_dir[i]) != 0) {
      dprintf(2, "simworld: cannot enter %s: %s\n", r->node_dir[i], strerror(errno));
      _exit(127);
    }
    setenv(DETSIM_DISK_DIR_ENV, r->data_dir[i], 1);
    setenv(DETSIM_DISK_JOURNAL_ENV, r->journal_dir[i], 1);
    execve(node->program, node->argv, environ);
    dprintf(2, "simworld: cannot run %s: %s\n", node->program, strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid); /* also here: no window where a kill of the group misses it */
  r->pids[i] = pid;
  r->groups[i] = pid;
  r->world->nodes[i].pid = pid;
  free(out);
  free(err);
  free(world_env);
  free(seed_env);
  free(opt_env);
}

/* Prints the last `lines` lines of a node's stderr, prefixed with its name
 * (so no line of it reads as the launcher's own result line). */
void sw_print_node_tail(const struct sw_run *r, unsigned i, unsigned lines) {
  char *path = log_path(r, i, "err");
  char *data = NULL;
  size_t len = 0;
  if (st_read_file(path, 16u << 20, &data, &len) == 0 && len > 0) {
    /* Without the node's coverage point lines (one per point, they would
     * fill the tail; the world reports its points itself). */
    size_t w = 0;
    for (size_t r = 0; r < len;) {
      const char *nl = memchr(data + r, '\n', len - r);
      size_t n = nl ? (size_t)(nl - (data + r)) + 1 : len - r;
      if (n < 14 || strncmp(data + r, "detsim: point ", 14)) {
        memmove(data + w, data + r, n);
        w += n;
      }
      r += n;
    }
    len = w;
    size_t start = len;
    unsigned seen = 0;
    while (start > 0) {
      if (data[start - 1] == '\n' && start != len && ++seen == lines) break;
      start--;
    }
    /* The node's own messages before those lines (a trace tail would
     * hide them): its first ST_OWN_LINES not from detsim. */
    unsigned own = 0;
    for (const char *p = data; p < data + start && own < ST_OWN_LINES;) {
      const char *nl = memchr(p, '\n', (size_t)(data + start - p));
      int n = nl ? (int)(nl - p) : (int)(data + start - p);
      if (n > 0 && strncmp(p, "detsim:", 7) != 0) {
        if (own++ == 0) fprintf(stderr, "simworld: %s's own first lines (not detsim's):\n", r->sc->nodes[i].name);
        fprintf(stderr, "  %s| %.*s\n", r->sc->nodes[i].name, n, p);
      }
      p += n + 1;
    }
    fprintf(stderr, "simworld: %s's stderr (%s), last lines:\n", r->sc->nodes[i].name, path);
    const char *p = data + start;
    while (p < data + len) {
      const char *nl = memchr(p, '\n', (size_t)(data + len - p));
      int n = nl ? (int)(nl - p) : (int)(data + len - p);
      fprintf(stderr, "  %s| %.*s\n", r->sc->nodes[i].name, n, p);
      p += n + 1;
    }
  }
  free(data);
  free(path);
}

/* Calls fn for each line of every node's stderr log that starts with
 * `mark`, with the rest of the line (not NUL-terminated: `len` bytes). */
static void each_marked_line(const struct sw_run *r, const char *mark,
                             void (*fn)(void *ctx, unsigned node, const char *rest, size_t len), void *ctx) {
  size_t m = strlen(mark);
  for (unsigned i = 0; i < r->sc->n_nodes; i++) {
    char *path = log_path(r, i, "err");
    char *data = NULL;
    size_t len = 0;
    if (st_read_file(path, 16u << 20, &data, &len) == 0) {
      for (char *p = data; p < data + len;) {
        char *nl = memchr(p, '\n', (size_t)(data + len - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(data + len - p);
        if (n > m && !strncmp(p, mark, m)) fn(ctx, i, p + m, n - m);
        p += n + 1;
      }
    }
    free(data);
    free(path);
  }
}

struct warnings {
  const struct sw_run *r;
  struct st_buf seen; /* "\n"-separated lines already printed */
};

static void forward_warning(void *ctx, unsigned node, const char *rest, size_t len) {
  struct warnings *w = ctx;
  char *line = st_xasprintf("\ndetsim: warning: %.*s (node %s)\n", (int)len, rest, w->r->sc->nodes[node].name);
  if (!strstr(w->seen.s, line)) {
    fprintf(stderr, "%s", line + 1);
    st_buf_puts(&w->seen, line + 1);
  }
  free(line);
}

void sw_forward_warnings(const struct sw_run *r) {
  struct warnings w = { r, { 0 } };
  st_buf_puts(&w.seen, "\n");
  each_marked_line(r, "detsim: warning: ", forward_warning, &w);
  st_buf_free(&w.seen);
}

static void print_blocked(void *ctx, unsigned node, const char *rest, size_t len) {
  (void)ctx;
  (void)node;
  fprintf(stderr, "  %.*s\n", (int)len, rest);
}

void sw_print_blocked(const struct sw_run *r) {
  fprintf(stderr, "simworld: every blocked thread of the world:\n");
  each_marked_line(r, "detsim: blocked: ", print_blocked, NULL);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

static void remove_tree(const char *path) {
  if (path) nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void make_dir(const char *path) {
  if (mkdir(path, 0755) != 0 && errno != EEXIST) st_die(ST_EXIT_HARNESS, "cannot make %s: %s", path, strerror(errno));
}

void sw_disks_create(struct sw_run *r) {
  char abs[PATH_MAX];
  if (realpath(r->log_dir, abs) == NULL) st_die(ST_EXIT_HARNESS, "%s: %s", r->log_dir, strerror(errno));
  for (unsigned i = 0; i < r->sc->n_nodes; i++) {
    const struct st_scenario_node *n = &r->sc->nodes[i];
    r->node_dir[i] = st_xasprintf("%s/node-%s", abs, n->name);
    r->journal_dir[i] = st_xasprintf("%s/.disk-%s", abs, n->name);
    /* Fresh per run: a --logs directory may hold another seed's. */
    remove_tree(r->node_dir[i]);
    remove_tree(r->journal_dir[i]);
    make_dir(r->node_dir[i]);
    make_dir(r->journal_dir[i]);
    if (n->data) {
      r->data_dir[i] = st_xasprintf("%s/%s", r->node_dir[i], n->data);
      /* Each component, as mkdir -p. */
      for (char *c = r->data_dir[i] + strlen(r->node_dir[i]) + 1; *c; c++)
        if (*c == '/') {
          *c = '\0';
          make_dir(r->data_dir[i]);
          *c = '/';
        }
      make_dir(r->data_dir[i]);
    } else {
      r->data_dir[i] = st_xstrdup(r->node_dir[i]);
    }
  }
}

void sw_disks_remove(struct sw_run *r) {
  for (unsigned i = 0; i < r->sc->n_nodes; i++) {
    remove_tree(r->node_dir[i]);
    remove_tree(r->journal_dir[i]);
  }
}

/* Starts node i and waits until it is parked in the world. */
static void start_node(struct sw_run *r, unsigned i) {
  r->dumped[i] = false;
  spawn(r, i);
  double until = st_now() + NODE_START_S;
  uint32_t *state = &r->world->nodes[i].state;
  while (__atomic_load_n(state, __ATOMIC_ACQUIRE) != DETSIM_NODE_READY) {
    int status;
    pid_t p = waitpid(r->pids[i], &status, WNOHANG);
    if (p == r->pids[i]) {
      r->pids[i] = 0;
      sw_print_node_tail(r, i, 20);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 89)
        st_die(89, "node %s refused its options or seed (see its stderr above)", r->sc->nodes[i].name);
      st_die(ST_EXIT_HARNESS, "node %s (%s) ended before it joined the world (%s %d): is it a simulation build, and does it start?",
             r->sc->nodes[i].name, r->sc->nodes[i].program, WIFEXITED(status) ? "exit status" : "signal",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    if (st_now() > until)
      st_die(ST_EXIT_HARNESS, "node %s did not join the world within %.0f s", r->sc->nodes[i].name, NODE_START_S);
    futex_wait_ms(state, DETSIM_NODE_STARTING, 10);
  }
}

void sw_start_all(struct sw_run *r) {
  for (unsigned i = 0; i < r->sc->n_nodes; i++) start_node(r, i);
  /* The first node the scenario does not hold takes the world (the
   * loader refuses cycles, so there is one). */
  unsigned first = 0;
  while (first + 1 < r->sc->n_nodes && r->sc->nodes[first].after1) first++;
  r->world->current = first;
  __atomic_store_n(&r->world->nodes[first].wake, 1, __ATOMIC_RELEASE);
  wake_word(&r->world->nodes[first].wake);
}

/* Whether process slot j runs on host i (its node's own process, or one
 * forked on it). */
static bool on_host(const struct detsim_world_shared *w, unsigned j, unsigned i) {
  return j == i || w->nodes[j].host1 == i + 1;
}

/* The processes forked on host i that the world still holds die, by pid
 * (a process that left the group for real, outside the simulation, too):
 * each once. */
static void kill_forked(struct sw_run *r, unsigned i) {
  const struct detsim_world_shared *w = r->world;
  for (unsigned j = w->n_hosts; j < w->n_nodes && j < DETSIM_WORLD_NODES_MAX; j++) {
    if (!on_host(w, j, i) || r->killed_vpid[j] == w->nodes[j].vpid) continue;
    uint32_t st = __atomic_load_n(&w->nodes[j].state, __ATOMIC_ACQUIRE);
    pid_t pid = __atomic_load_n(&w->nodes[j].pid, __ATOMIC_ACQUIRE);
    /* Only a process the world still holds: an ended one's pid may be
     * another process's by now. */
    if (pid > 0 && (st == DETSIM_NODE_READY || st == DETSIM_NODE_DOWN)) kill(pid, SIGKILL);
    r->killed_vpid[j] = w->nodes[j].vpid;
  }
}

/* Every real process of host i dies: its group (every process forked on
 * it is in it), and its forked processes by pid.  The group's leader stays
 * a zombie until it is reaped, so its id names no other group. */
static void kill_host(struct sw_run *r, unsigned i) {
  if (r->groups[i] > 0) kill(-r->groups[i], SIGKILL);
  kill_forked(r, i);
}

/* A node process ended: was it the world's doing, or a death outside it? */
static void reaped(struct sw_run *r, unsigned i, int status) {
  r->pids[i] = 0;
  /* The processes forked on it end with it (the world ended them at its
   * end: world.c). */
  kill_host(r, i);
  r->groups[i] = 0;
  struct detsim_world_node *n = &r->world->nodes[i];
  uint32_t st = __atomic_load_n(&n->state, __ATOMIC_ACQUIRE);
  if (st == DETSIM_NODE_EXITED || st == DETSIM_NODE_DOWN || __atomic_load_n(&r->world->ended, __ATOMIC_ACQUIRE)) return;
  /* Its runtime never saw the end (SIGKILL from outside, _exit before the
   * simulation, a raw exit system call): the world cannot go on. */
  __atomic_store_n(&n->state, DETSIM_NODE_DEAD, __ATOMIC_RELEASE);
  r->outside_death = (int)i;
  r->outside_status = status;
}

static void kill_and_reap(struct sw_run *r, unsigned i) {
  if (r->pids[i] <= 0) return;
  kill_host(r, i);
  waitpid(r->pids[i], NULL, 0);
  r->pids[i] = 0;
  r->groups[i] = 0;
}

/* Reaps the nodes that ended, and the processes forked on them that their
 * parents left (the launcher is their subreaper). */
static void reap_children(struct sw_run *r) {
  const struct detsim_world_shared *w = r->world;
  int status;
  pid_t p;
  while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
    for (unsigned i = 0; i < r->sc->n_nodes; i++)
      if (r->pids[i] == p) reaped(r, i, status);
    /* A process forked on a node that the launcher reaped: its slot's pid
     * names nothing from now on. */
    for (unsigned j = w->n_hosts; j < w->n_nodes && j < DETSIM_WORLD_NODES_MAX; j++)
      if (__atomic_load_n(&w->nodes[j].pid, __ATOMIC_ACQUIRE) == p) r->gone_vpid[j] = w->nodes[j].vpid;
  }
}

/* Waits (at most SW_HOST_GONE_MS) until no process of host i that the
 * launcher killed is left (nor a zombie the host left), reaping them, so a
 * restart starts the host afresh: no process of the old one runs beside
 * the new.  Their slots' pids are cleared then (the holder of the world
 * waits for the restart): the world may reuse the slots. */
#define SW_HOST_GONE_MS 5000
static void wait_host_gone(struct sw_run *r, unsigned i) {
  struct detsim_world_shared *w = r->world;
  for (int waited = 0;; waited += 5) {
    reap_children(r);
    bool left = false;
    for (unsigned j = w->n_hosts; j < w->n_nodes && j < DETSIM_WORLD_NODES_MAX; j++) {
      pid_t pid = __atomic_load_n(&w->nodes[j].pid, __ATOMIC_ACQUIRE);
      if (!on_host(w, j, i) || pid <= 0 || r->killed_vpid[j] != w->nodes[j].vpid) continue;
      if (r->gone_vpid[j] == w->nodes[j].vpid || (kill(pid, 0) != 0 && errno == ESRCH))
        __atomic_store_n(&w->nodes[j].pid, 0, __ATOMIC_RELEASE);
      else
        left = true;
    }
    if (!left) return;
    if (waited >= SW_HOST_GONE_MS) {
      fprintf(stderr, "simworld: warning: processes of node %s still run %d ms after its crash\n",
              r->sc->nodes[i].name, SW_HOST_GONE_MS);
      return;
    }
    struct timespec ts = { 0, 5 * 1000000L };
    nanosleep(&ts, NULL);
  }
}

/* Waits until `asked` nodes more than `before` said they are done, or
 * SW_DUMP_WAIT_MS. */
static void wait_dumps(struct sw_run *r, uint32_t before, uint32_t asked) {
  for (int waited = 0; waited < SW_DUMP_WAIT_MS; waited += 50) {
    uint32_t done = __atomic_load_n(&r->world->dumps_done, __ATOMIC_ACQUIRE);
    if (done - before >= asked) return;
    futex_wait_ms(&r->world->dumps_done, done, 50);
  }
}

/* A crashed host's processes write what they recorded before they are
 * killed: once per incarnation (the host's own process, and each process
 * forked on it that the crash took down). */
static void dump_crashed(struct sw_run *r, unsigned i) {
  if (r->dumped[i]) return;
  r->dumped[i] = true;
  const struct detsim_world_shared *w = r->world;
  uint32_t before = __atomic_load_n(&r->world->dumps_done, __ATOMIC_ACQUIRE), asked = 0;
  if (r->pids[i] > 0 && __atomic_load_n(&w->nodes[i].state, __ATOMIC_ACQUIRE) == DETSIM_NODE_DOWN &&
      kill(r->pids[i], DETSIM_WORLD_DUMP_SIGNAL) == 0)
    asked++;
  for (unsigned j = w->n_hosts; j < w->n_nodes && j < DETSIM_WORLD_NODES_MAX; j++) {
    pid_t pid = __atomic_load_n(&w->nodes[j].pid, __ATOMIC_ACQUIRE);
    if (on_host(w, j, i) && pid > 0 && r->killed_vpid[j] != w->nodes[j].vpid &&
        __atomic_load_n(&w->nodes[j].state, __ATOMIC_ACQUIRE) == DETSIM_NODE_DOWN &&
        kill(pid, DETSIM_WORLD_DUMP_SIGNAL) == 0)
      asked++;
  }
  if (asked) wait_dumps(r, before, asked);
}

/* A crash fault marked nodes DOWN: their processes die for real now, once
 * each has written what it recorded (the world's trace may want it); so
 * do the processes a node's first process left behind when it ended. */
static void kill_crashed(struct sw_run *r) {
  const struct detsim_world_shared *w = r->world;
  for (unsigned i = 0; i < r->sc->n_nodes; i++) {
    if (r->pids[i] > 0 && __atomic_load_n(&w->nodes[i].kill_me, __ATOMIC_ACQUIRE)) {
      dump_crashed(r, i);
      kill_host(r, i);
    }
  }
  for (unsigned j = w->n_hosts; j < w->n_nodes && j < DETSIM_WORLD_NODES_MAX; j++) {
    if (!__atomic_load_n(&w->nodes[j].kill_me, __ATOMIC_ACQUIRE) || r->killed_vpid[j] == w->nodes[j].vpid) continue;
    /* Its node's first process ended (it is still on its way out: the
     * group goes when it is reaped). */
    unsigned host = w->nodes[j].host1 - 1;
    if (host < r->sc->n_nodes) {
      dump_crashed(r, host);
      kill_forked(r, host);
    }
  }
}

/* The node holding the world waits while a crashed node comes back: the
 * old process must be gone first (its dispatcher waits on the same word
 * as the new one's will). */
static void restart_requested(struct sw_run *r) {
  uint32_t req = __atomic_load_n(&r->world->restart_request, __ATOMIC_ACQUIRE);
  if (req == 0 || __atomic_load_n(&r->world->restart_done, __ATOMIC_ACQUIRE)) return;
  unsigned i = req - 1;
  /* A crashed process not yet killed writes its records first (an exited
   * one wrote them on its way out). */
  if (r->pids[i] > 0 && __atomic_load_n(&r->world->nodes[i].state, __ATOMIC_ACQUIRE) == DETSIM_NODE_DOWN)
    dump_crashed(r, i);
  kill_and_reap(r, i);
  wait_host_gone(r, i);
  char *err = log_path(r, i, "err");
  FILE *f = fopen(err, "a");
  if (f) {
    const struct detsim_world_node *n = &r->world->nodes[i];
    const char *why = !n->term_sent ? (n->down_silent ? "a crash as a dead host" : "a crash as a dead process")
                      : __atomic_load_n(&n->state, __ATOMIC_ACQUIRE) == DETSIM_NODE_EXITED
                          ? "SIGTERM (it exited)"
                          : "SIGTERM (killed at the end of its grace period)";
    fprintf(f, "simworld: --- %s restarts (incarnation %u) at virtual time %.6f s, after %s ---\n",
            r->sc->nodes[i].name, n->incarnation + 1, (double)r->world->now_ns / 1e9, why);
    fclose(f);
  }
  free(err);
  start_node(r, i);
  __atomic_store_n(&r->world->restart_done, 1, __ATOMIC_RELEASE);
  wake_word(&r->world->restart_done);
}

/* Whether the process with real pid `pid` is gone or a zombie. */
static bool process_dead(pid_t pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) return true;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *close_paren = strrchr(buf, ')'); /* the name may hold spaces */
  return close_paren != NULL && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

/* A process forked on a node (not the launcher's child: no wait tells)
 * died outside the simulation while it held the world: the world cannot
 * go on.  Its host is the one named. */
static void holder_died(struct sw_run *r) {
  const struct detsim_world_shared *w = r->world;
  unsigned cur = __atomic_load_n(&w->current, __ATOMIC_ACQUIRE);
  if (cur < w->n_hosts || cur >= w->n_nodes || cur >= DETSIM_WORLD_NODES_MAX || r->outside_death >= 0) return;
  /* READY, or STARTING: its exec's new image holds the world too. */
  pid_t pid = __atomic_load_n(&w->nodes[cur].pid, __ATOMIC_ACQUIRE);
  uint32_t st = __atomic_load_n(&w->nodes[cur].state, __ATOMIC_ACQUIRE);
  if (pid <= 0 || (st != DETSIM_NODE_READY && st != DETSIM_NODE_STARTING)) return;
  if (!process_dead(pid)) return;
  /* It may have handed the world over just before it ended. */
  if (__atomic_load_n(&w->current, __ATOMIC_ACQUIRE) != cur || __atomic_load_n(&w->nodes[cur].state, __ATOMIC_ACQUIRE) != st)
    return;
  __atomic_store_n(&r->world->nodes[cur].state, DETSIM_NODE_DEAD, __ATOMIC_RELEASE);
  r->outside_death = (int)(w->nodes[cur].host1 - 1);
  r->outside_status = SIGKILL; /* its status is its parent's to take: a signal, as far as anyone knows */
  r->outside_vpid = w->nodes[cur].vpid;
}

volatile int sw_signal_received;

/* A signal from outside came: a node holding the world ends it at its next
 * event (the usual way, its result named); else the launcher ends it. */
static bool outside_signal_due(struct sw_run *r, double *since) {
  uint32_t posted = __atomic_load_n(&r->world->outside_signal, __ATOMIC_ACQUIRE);
  if (posted == 0 && sw_signal_received == 0) return false;
  if (*since == 0) *since = st_now();
  if (st_now() - *since < SW_OUTSIDE_GRACE_MS / 1000.0) return false;
  uint32_t none = 0;
  if (__atomic_compare_exchange_n(&r->world->outside_signal, &none, (uint32_t)sw_signal_received, false,
                                  __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    __atomic_store_n(&r->world->outside_node, -1, __ATOMIC_RELEASE);
  return true;
}

int sw_supervise(struct sw_run *r) {
  double outside_since = 0;
  for (;;) {
    uint32_t bell = __atomic_load_n(&r->world->bell, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&r->world->ended, __ATOMIC_ACQUIRE)) return 0;
    if (outside_signal_due(r, &outside_since)) return SW_OUTSIDE_SIGNAL;
    kill_crashed(r);
    restart_requested(r);
    reap_children(r);
    holder_died(r);
    if (r->outside_death >= 0 && !__atomic_load_n(&r->world->ended, __ATOMIC_ACQUIRE)) return -1;
    futex_wait_ms(&r->world->bell, bell, outside_since ? 10 : 50);
  }
}

void sw_dump_all(struct sw_run *r) {
  const struct detsim_world_shared *w = r->world;
  uint32_t before = __atomic_load_n(&r->world->dumps_done, __ATOMIC_ACQUIRE), asked = 0;
  /* Only a process still in the world answers: one that exited, crashed
   * or died may be a zombie not yet reaped, which kill() still reaches.
   * The nodes' processes, and every process forked on them. */
  for (unsigned j = 0; j < w->n_nodes && j < DETSIM_WORLD_NODES_MAX; j++) {
    pid_t pid = j < r->sc->n_nodes ? r->pids[j] : __atomic_load_n(&w->nodes[j].pid, __ATOMIC_ACQUIRE);
    if (j >= r->sc->n_nodes && r->killed_vpid[j] == w->nodes[j].vpid) continue;
    if (pid <= 0 || (int)j == w->end_node) continue;
    uint32_t st = __atomic_load_n(&w->nodes[j].state, __ATOMIC_ACQUIRE);
    /* A crashed process out of the world's way and not yet killed: its
     * coverage too (fuzz mode), as a kill would have asked for it. */
    bool crashed = r->fuzz && !r->dumped[j] && st == DETSIM_NODE_DOWN &&
                   __atomic_load_n(&w->nodes[j].kill_me, __ATOMIC_ACQUIRE);
    if ((st == DETSIM_NODE_READY || crashed) && kill(pid, DETSIM_WORLD_DUMP_SIGNAL) == 0) {
      if (crashed) r->dumped[j] = true;
      asked++;
    }
  }
  wait_dumps(r, before, asked);
}

/* Reaps every child left (the processes forked on the nodes, which came
 * to the launcher as their subreaper when their parents died), for at
 * most SW_REAP_WAIT_MS: all were killed. */
#define SW_REAP_WAIT_MS 5000
static void reap_all(void) {
  for (int waited = 0; waited < SW_REAP_WAIT_MS;) {
    pid_t p = waitpid(-1, NULL, WNOHANG);
    if (p > 0) continue;
    if (p < 0 && errno == ECHILD) return;
    struct timespec ts = { 0, 10 * 1000000L };
    nanosleep(&ts, NULL);
    waited += 10;
  }
  fprintf(stderr, "simworld: warning: processes of the world still run %d ms after they were killed\n", SW_REAP_WAIT_MS);
}

void sw_kill_all(struct sw_run *r) {
  for (unsigned i = 0; i < r->sc->n_nodes; i++) kill_host(r, i);
  for (unsigned i = 0; i < r->sc->n_nodes; i++) kill_and_reap(r, i);
  reap_all();
}
