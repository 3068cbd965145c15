/* exec in a process of the simulation (proc/proc.h, docs/processes.md).
 *
 * Rules of this file:
 *  - The old image decides and writes the hand-over while it holds the
 *    world (the exec is an event, and nothing else of the world runs until
 *    the new image takes it back), and changes nothing that a failed exec
 *    could not undo: the close-on-exec descriptors are closed by the new
 *    image (as the kernel closes them only once the exec cannot fail).
 *  - The slot keeps everything the world knows of the process (pid, parent,
 *    children, host, clock, inbox); the new image's runtime is fresh, and
 *    takes from the hand-over only what execve(2) keeps.
 *  - A run not yet a world becomes one first (as its first fork would), so
 *    every exec image attaches the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/core.h"
#include "fuzz/fuzz.h"
#include "time/time.h"
#include "limits.h"
#include "net/net.h"
#include "trace/trace.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "signal/signal.h"
#include "world/world.h"

#define S detsim__ws

extern char **environ;

/* ---- escapes: a binary that is not a simulation build ---- */

/* Without a world's header (its region could not be mapped) the count is
 * this process's own. */
static uint32_t local_escapes;

static void note_escape(const char *path, bool outside) {
  if (S == NULL) {
    local_escapes++;
    return;
  }
  if (S->exec_escapes + S->exec_outside_runs == 0)
    snprintf(S->exec_escape_name, sizeof S->exec_escape_name, "%s", path);
  if (outside) S->exec_outside_runs++;
  else S->exec_escapes++;
}

bool detsim__proc_exec_escaped(void) { return local_escapes || (S != NULL && S->exec_escapes); }

const char *detsim__proc_exec_escape_extra(void) {
  static char extra[192];
  if (S != NULL && S->exec_escapes)
    snprintf(extra, sizeof extra, "reason=exec-escape binary=%s", S->exec_escape_name);
  else
    snprintf(extra, sizeof extra, "reason=exec-escape");
  return extra;
}

const char *detsim__proc_exec_result_extra(void) {
  return S != NULL && S->exec_outside_runs ? "replayable=no" : "";
}

int detsim__proc_exec_refuse(const char *call, const char *path) {
  detsim__msg("error: %s(\"%s\"): not a simulation build (it does not load libdetsim_rt), so it would run outside "
              "the simulation: the call fails with EPERM and the run ends inconclusive (reason=exec-escape); build it "
              "with detsim-cc, or DETSIM_OPTIONS=exec_native=1 runs it outside (the run is then not replayable)",
              call, path);
  note_escape(path, false);
  errno = EPERM;
  return -1;
}

/* exec_native=1: the binary runs outside.  The first process's exec ends
 * the simulated run there (its result line first, then the real exec:
 * the process's exit status is the binary's); a forked process leaves the
 * world as a black box that keeps its slot and pid, which its parent's
 * wait asks the kernel about (proc_wait.c). */
static int run_outside(const char *call, const char *path, int fd, char *const argv[], char *const envp[]) {
  static unsigned told;
  if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
    detsim__msg("warning: %s(\"%s\"): not a simulation build: it runs outside the simulation (exec_native=1), and "
                "this run is not replayable", call, path);
  note_escape(path, true);
  fflush(NULL);
  if (detsim__proc_is_forked()) {
    S->exec_outside[detsim__node_index] = 1;
    /* Its simulated descriptors mean nothing outside: they close now, as
     * its end would close them. */
    net_close_all();
    detsim__world_node_exit(0);
  } else {
    detsim__proc_teardown();
    detsim__write_result(DETSIM_CLASS_pass, 0, "reason=exec-native");
  }
  int r = fd >= 0 ? REAL(fexecve)(fd, argv, envp) : REAL(execve)(path, argv, envp);
  /* Past the point of leaving: nothing is left to go back to. */
  detsim__msg("error: %s(\"%s\") outside the simulation failed: %s", call, path, strerror(errno));
  REAL(_exit)(127);
  return r;
}

/* ---- the hand-over ---- */

struct text {
  char *buf;
  size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    CHECK_GE(k, 0);
    if (t->len + (size_t)k < t->cap) {
      t->len += (size_t)k;
      return;
    }
    t->cap = (t->cap + (size_t)k) * 2;
    t->buf = realloc(t->buf, t->cap);
    CHECK(t->buf != NULL);
  }
}

/* Each simulated descriptor: kept (its number and its file's offset in the
 * world) or closed by the exec (the file's offset only). */
static void describe_fd(int fd, struct net_file *f, bool cloexec, void *arg) {
  uintptr_t off = (uintptr_t)f - (uintptr_t)S;
  if (cloexec) put(arg, " d=%" PRIxPTR, off);
  else put(arg, " k=%d:%" PRIxPTR, fd, off);
}

/* The placeholders of the kept descriptors hold their numbers through the
 * exec (placeholders are close-on-exec otherwise), or again not. */
static void placeholder_cloexec(int fd, struct net_file *f, bool cloexec, void *arg) {
  (void)f;
  if (!cloexec) REAL(fcntl)(fd, F_SETFD, *(bool *)arg ? FD_CLOEXEC : 0);
}

static bool runtime_var(const char *e) {
  static const char *const names[] = { "DETSIM_SEED=", "DETSIM_OPTIONS=", DETSIM_WORLD_ENV "=", DETSIM_EXEC_ENV "=",
                                       "DETSIM__NO_ASLR_REEXEC=", DETSIM_DISK_DIR_ENV "=", DETSIM_DISK_JOURNAL_ENV "=" };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strncmp(e, names[i], strlen(names[i])) == 0) return true;
  return false;
}

/* The new image's environment: the program's, with the run's own variables
 * (the seed, the options, the hand-over) in place of any it had. */
static char **image_env(char *const envp[], char *vars[], size_t n_vars) {
  size_t n = 0;
  while (envp && envp[n]) n++;
  char **env = malloc((n + n_vars + 1) * sizeof *env);
  CHECK(env != NULL);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!runtime_var(envp[i])) env[k++] = envp[i];
  for (size_t i = 0; i < n_vars; i++)
    if (vars[i]) env[k++] = vars[i];
  env[k] = NULL;
  return env;
}

static char *var(const char *name, const char *value) {
  if (value == NULL) return NULL;
  size_t n = strlen(name) + strlen(value) + 2;
  char *v = malloc(n);
  CHECK(v != NULL);
  snprintf(v, n, "%s=%s", name, value);
  return v;
}

int detsim__proc_exec(const char *call, const char *file, bool search, int fd, char *const argv[],
                      char *const envp[], uintptr_t pc) {
  /* The run-time traps outlive an exec (a seccomp filter cannot be
   * removed; the TSC mode is inherited): refused, or the TSC handed back. */
  if (detsim__trap_exec_refused(call, file)) return -1;
  char path[DETSIM_PATH_BYTES_MAX];
  const char *shown = file ? file : "(null)";
  if (fd >= 0) {
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  } else {
    int e = detsim__proc_exec_resolve(file, search, path, sizeof path);
    if (e != 0) {
      errno = e;
      return -1;
    }
    shown = path;
  }
  if (envp == NULL) envp = environ; /* execv, execvp, execl, execlp */
  bool sim = false;
  int e = detsim__proc_elf_is_sim(path, fd, &sim);
  if (e != 0) {
    errno = e;
    return -1;
  }
  if (!sim) return detsim__opt.exec_native ? run_outside(call, path, fd, argv, envp) : detsim__proc_exec_refuse(call, shown);
  /* A run that cannot be a world of its own (a build whose sanitizer
   * leaves no room for the world's region) is replaced by the new image,
   * as before processes were simulated: the new image starts a run of its
   * own. */
  if (!detsim__in_world && (S == NULL || detsim__proc_world_fd < 0)) {
    detsim__msg("warning: %s(\"%s\"): this run cannot hand its process over (no world region): the new image "
                "starts a run of its own", call, shown);
    return fd >= 0 ? REAL(fexecve)(fd, argv, envp) : REAL(execve)(path, argv, envp);
  }
  if (!detsim__proc_world_fd_ok()) {
    detsim__msg("error: %s(\"%s\"): the world's memory descriptor %d was closed or replaced by the program, so the "
                "new image could not join the run: the call fails with EBADF", call, shown, detsim__proc_world_fd);
    errno = EBADF;
    return -1;
  }
  struct detsim_world_node *me;
  detsim__yield_aux(DETSIM_EV_proc_exec, NULL, pc, 0);
  if (!detsim__in_world) detsim__proc_become_world();
  me = &S->nodes[detsim__node_index];

  /* What execve keeps: ids, signal state, simulated descriptors. */
  struct text rec = { 0 };
  uint64_t mask, pend_t, pend_p, ign;
  detsim__sig_exec_save(&mask, &pend_t, &pend_p, &ign);
  put(&rec, "ids=%d/%d/%d/%d sig=%" PRIx64 "/%" PRIx64 "/%" PRIx64 "/%" PRIx64, (int)detsim__proc_pid(),
      (int)detsim__proc_ppid(), (int)detsim__proc_pgid(), (int)detsim__proc_sid(), mask, pend_t, pend_p, ign);
  uint64_t timers[DETSIM_EXEC_TIMER_WORDS];
  detsim__sig_exec_timers_save(timers);
  put(&rec, " tm=");
  for (int i = 0; i < DETSIM_EXEC_TIMER_WORDS; i++) put(&rec, "%s%" PRIx64, i ? "/" : "", timers[i]);
  net_exec_each(describe_fd, &rec);
  char world[64], seed[32];
  snprintf(world, sizeof world, "%d,%u", detsim__proc_world_fd, detsim__node_index);
  snprintf(seed, sizeof seed, "%" PRIu64, detsim__seed());
  /* A node's simulated disk is its host's, whatever environment the
   * program gives the new image. */
  char *vars[] = { var("DETSIM_SEED", seed), var("DETSIM_OPTIONS", getenv("DETSIM_OPTIONS")),
                   var(DETSIM_WORLD_ENV, world), var(DETSIM_EXEC_ENV, rec.buf),
                   var(DETSIM_DISK_DIR_ENV, getenv(DETSIM_DISK_DIR_ENV)),
                   var(DETSIM_DISK_JOURNAL_ENV, getenv(DETSIM_DISK_JOURNAL_ENV)) };
  char **env = image_env(envp, vars, sizeof vars / sizeof vars[0]);

  detsim__event(DETSIM_EV_proc_exec, detsim__self(), NULL, pc, me->incarnation + 1);
  /* A world merges its trace from every image's part: this
   * image's records go with it (a failed exec writes them again later). */
  if (detsim__in_world) detsim__world_trace_part();
  /* The world stays with this slot: the new image takes the history from
   * the header when its dispatcher first enters (proc_exec_attach). */
  S->now_ns = detsim__now_ns();
  detsim__history_get(&S->events, &S->hash);
  me->incarnation++;
  __atomic_store_n(&me->state, DETSIM_NODE_STARTING, __ATOMIC_RELEASE);
  bool on = false;
  net_exec_each(placeholder_cloexec, &on);
  REAL(fcntl)(detsim__proc_world_fd, F_SETFD, 0);
  /* Fuzz mode: what the old image reached (a failed exec counts it twice;
   * coverage only guides). */
  detsim__fuzz_world_give();
  int r = fd >= 0 ? REAL(fexecve)(fd, argv, env) : REAL(execve)(path, argv, env);
  /* Failed: nothing of the process changed. */
  e = errno;
  REAL(fcntl)(detsim__proc_world_fd, F_SETFD, FD_CLOEXEC);
  on = true;
  net_exec_each(placeholder_cloexec, &on);
  me->incarnation--;
  __atomic_store_n(&me->state, DETSIM_NODE_READY, __ATOMIC_RELEASE);
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) free(vars[i]);
  free(env);
  free(rec.buf);
  errno = e;
  return r;
}

/* ---- the new image ---- */

struct handover {
  unsigned slot;
  int world_fd;
  int pid, ppid, pgid, sid;
  uint64_t mask, pend_t, pend_p, ign;
  uint64_t timers[DETSIM_EXEC_TIMER_WORDS];
  const char *fds; /* the " k=.. d=.." list */
};
static struct handover H;
static bool is_image;

static _Noreturn void handover_error(const char *what) {
  detsim__msg("error: %s=%s: %s (set by an exec in a process of the simulation, not by hand)", DETSIM_EXEC_ENV,
              getenv(DETSIM_EXEC_ENV) ? getenv(DETSIM_EXEC_ENV) : "", what);
  REAL(syscall)(SYS_exit_group, DETSIM_EXIT_USAGE);
  __builtin_unreachable();
}

bool detsim__proc_exec_image_holds_world(void) { return is_image; }

bool detsim__proc_exec_image(void) { return getenv(DETSIM_EXEC_ENV) != NULL && getenv(DETSIM_WORLD_ENV) != NULL; }

void detsim__proc_exec_attach(void) {
  const char *w = getenv(DETSIM_WORLD_ENV), *x = getenv(DETSIM_EXEC_ENV);
  int n = 0;
  if (sscanf(w, "%d,%u%n", &H.world_fd, &H.slot, &n) != 2 || w[n] != '\0' || H.world_fd < 0 ||
      H.slot >= DETSIM_WORLD_NODES_MAX)
    handover_error("bad " DETSIM_WORLD_ENV);
  n = 0;
  if (sscanf(x, "ids=%d/%d/%d/%d sig=%" SCNx64 "/%" SCNx64 "/%" SCNx64 "/%" SCNx64 "%n", &H.pid, &H.ppid, &H.pgid,
             &H.sid, &H.mask, &H.pend_t, &H.pend_p, &H.ign, &n) != 8 || n == 0 || H.pid < DETSIM_PID_FIRST)
    handover_error("malformed");
  x += n;
  n = 0;
  if (sscanf(x, " tm=%n", &n) != 0 || n == 0) handover_error("no interval timers");
  for (int i = 0; i < DETSIM_EXEC_TIMER_WORDS; i++) {
    x += n;
    n = 0;
    if ((i && *x++ != '/') || sscanf(x, "%" SCNx64 "%n", &H.timers[i], &n) != 1 || n == 0)
      handover_error("malformed interval timers");
  }
  H.fds = x + n;
  void *want = (void *)(uintptr_t)DETSIM_WORLD_ADDR;
  void *p = mmap(want, DETSIM_WORLD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE,
                 H.world_fd, 0);
  if (p == MAP_FAILED || p != want) handover_error("cannot map the world at its address in the new image");
  S = p;
  if (S->magic != DETSIM_WORLD_MAGIC || S->version != DETSIM_WORLD_VERSION) handover_error("not a world of this detsim");
  if (H.slot >= S->n_nodes || __atomic_load_n(&S->nodes[H.slot].state, __ATOMIC_ACQUIRE) != DETSIM_NODE_STARTING ||
      S->nodes[H.slot].vpid != H.pid || S->nodes[H.slot].pid != REAL(getpid)())
    handover_error("that slot is not this process's exec");
  is_image = true;
  REAL(fcntl)(H.world_fd, F_SETFD, FD_CLOEXEC);
  detsim__proc_adopt_world_fd(H.world_fd);
  detsim__in_world = true;
  /* A run's own world has no launcher. */
  detsim__world_solo = S->launcher_pid == 0;
  detsim__node_index = H.slot;
  detsim__host_index = detsim__world_host_of(H.slot);
  detsim__clock_follow(&S->nodes[detsim__host_index].clock);
  detsim__plan_attach_world();
  /* The old image's threads are gone; their words start over.  The world
   * is this slot's: its dispatcher takes it once the slot is READY again
   * (detsim__world_park_main). */
  memset(S->batons[H.slot], 0, sizeof S->batons[H.slot]);
  __atomic_store_n(&S->nodes[H.slot].wake, 0, __ATOMIC_RELEASE);
  unsetenv(DETSIM_WORLD_ENV);
  unsetenv(DETSIM_EXEC_ENV);
}

void detsim__proc_exec_ids(void) {
  CHECK(is_image);
  detsim__proc_set(H.pid, H.ppid, H.pgid, H.sid);
}

void detsim__proc_exec_adopt(void) {
  CHECK(is_image);
  /* H.fds points into the variable's string: unsetenv took it out of the
   * environment but does not free it. */
  for (const char *p = H.fds; *p; ) {
    while (*p == ' ') p++;
    if (*p == '\0') break;
    int fd = -1, n = 0;
    uintptr_t off = 0;
    if (sscanf(p, "k=%d:%" SCNxPTR "%n", &fd, &off, &n) == 2 && n > 0) {
      if (fd < 0 || fd >= DETSIM_NET_FD_NUMBER_MAX || off == 0 || off >= DETSIM_WORLD_BYTES) handover_error("bad descriptor");
      net_exec_adopt(fd, (struct net_file *)((uintptr_t)S + off));
      REAL(fcntl)(fd, F_SETFD, FD_CLOEXEC);
    } else if (sscanf(p, "d=%" SCNxPTR "%n", &off, &n) == 1 && n > 0) {
      if (off == 0 || off >= DETSIM_WORLD_BYTES) handover_error("bad descriptor");
    } else {
      handover_error("bad descriptor list");
    }
    p += n;
  }
  /* The close-on-exec ones close after every kept one is in the table
   * (one file may be behind both). */
  for (const char *p = H.fds; *p; ) {
    while (*p == ' ') p++;
    if (*p == '\0') break;
    int fd, n = 0;
    uintptr_t off;
    if (sscanf(p, "k=%d:%" SCNxPTR "%n", &fd, &off, &n) == 2 && n > 0) {
    } else if (sscanf(p, "d=%" SCNxPTR "%n", &off, &n) == 1 && n > 0) {
      detsim__suppress_begin();
      net_exec_drop((struct net_file *)((uintptr_t)S + off));
      detsim__suppress_end();
    }
    p += n;
  }
  detsim__sig_exec_restore(H.mask, H.pend_t, H.pend_p, H.ign);
  detsim__sig_exec_timers_restore(H.timers);
  /* The first process's image watches the world for an end found elsewhere
   * (it is still the children's subreaper: that survives an exec); a
   * scenario's launcher watches its own world. */
  if (detsim__world_solo && detsim__node_index == 0) detsim__proc_start_warden();
  detsim__sched_refresh_time_stop();
}
