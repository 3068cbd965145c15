/* Processes of a world: fork, a forked process's end, the teardown
 * (proc.h, docs/processes.md).
 *
 * Rules of this file:
 *  - A process is a slot of the world's node table; a forked one names its
 *    host (host1) and its parent.  A slot is reused once its process is
 *    gone for good (free_slot); pids never are, so a pid names one process,
 *    and pids are in creation order (a parent before its children: the
 *    teardown relies on it).
 *  - Only the baton holder writes the header, as everywhere in a world;
 *    the one exception is the child's own setup before it first takes the
 *    world, which writes nothing shared.
 *  - The parent makes the child a candidate of the world when its real
 *    fork returns, before any other yield point, so the child enters the
 *    history at the same place in every run of the seed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/core.h"
#include "disk/disk.h"
#include "time/time.h"
#include "limits.h"
#include "net/net.h"
#include "fuzz/fuzz.h"
#include "trace/trace.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "sanitize/sanitize.h"
#include "sync/sync.h"
#include "signal/signal.h"
#include "world/world.h"

#define S detsim__ws

_Static_assert(DETSIM_WORLD_PROCESSES_MAX <= DETSIM_WORLD_NODES_MAX, "every process has a node slot");

void detsim__watchdog_start(void);

int detsim__proc_ending_signal;

/* The slot the child of the fork in progress takes (read by the child). */
static int fork_slot = -1;
/* Whether that fork came from the first process's main thread: the child
 * then dies with it (PR_SET_PDEATHSIG is about the forking thread, and
 * about the parent only: a deeper descendant, which Linux lets outlive its
 * own parent, watches the first process from its watchdog instead). */
static bool fork_from_main;
static pid_t fork_parent_real_pid;

bool detsim__proc_is_forked(void) {
  return detsim__in_world && S->nodes[detsim__node_index].host1 != 0;
}

bool detsim__proc_orphan(void) {
  return detsim__proc_is_forked() && S->nodes[detsim__node_index].parent < 0;
}

/* ---- the run's own region, and its world ---- */

int detsim__proc_world_fd = -1;
static ino_t world_fd_ino;

/* The world's memory descriptor sits at a high number, close-on-exec, so
 * that the program's own descriptors are numbered as natively; an exec
 * hands it to the new image (proc_exec.c). */
static int move_high(int fd) {
  struct rlimit lim;
  long top = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY ? (long)lim.rlim_cur : 1024;
  if (top > (1l << 20)) top = 1l << 20;
  long want = top - 64 > 3 ? top - 64 : 3;
  int high = REAL(fcntl)(fd, F_DUPFD_CLOEXEC, (int)want);
  if (high >= 0) {
    REAL(close)(fd);
    fd = high;
  } else {
    REAL(fcntl)(fd, F_SETFD, FD_CLOEXEC);
  }
  struct stat st;
  if (fstat(fd, &st) == 0) world_fd_ino = st.st_ino;
  return fd;
}

/* The region is a memory file, not anonymous memory: a fork shares its
 * mapping just the same, and an exec hands the file on. */
static int world_memfd(void) {
  int fd = (int)REAL(syscall)(SYS_memfd_create, "detsim-world", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (ftruncate(fd, (off_t)DETSIM_WORLD_BYTES) != 0) {
    REAL(close)(fd);
    return -1;
  }
  return move_high(fd);
}

void detsim__proc_keep_world_fd(int fd) { detsim__proc_world_fd = move_high(fd); }

bool detsim__proc_world_fd_ok(void) {
  struct stat st;
  return detsim__proc_world_fd >= 0 && fstat(detsim__proc_world_fd, &st) == 0 && st.st_ino == world_fd_ino;
}

void detsim__proc_map_own_region(void) {
  void *want = (void *)(uintptr_t)DETSIM_WORLD_ADDR;
  int fd = world_memfd();
  void *p = mmap(want, DETSIM_WORLD_BYTES, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE | (fd < 0 ? MAP_ANONYMOUS : 0), fd, 0);
  if (p == MAP_FAILED || p != want) {
    if (p != MAP_FAILED) munmap(p, DETSIM_WORLD_BYTES);
    if (fd >= 0) REAL(close)(fd);
    return;
  }
  detsim__proc_world_fd = fd;
  /* Only the arena is used until a fork: network objects are allocated
   * there from the start, so a child shares those made before it. */
  S = p;
}

void detsim__proc_adopt_world_fd(int fd) {
  struct stat st;
  detsim__proc_world_fd = fd;
  if (fstat(fd, &st) == 0) world_fd_ino = st.st_ino;
}

static void futex_wait_shared(uint32_t *word, uint32_t val) {
  REAL(syscall)(SYS_futex, word, FUTEX_WAIT, val, NULL, NULL, 0);
}

/* The first process's warden: a real thread outside the simulation that
 * waits for an end found by another process, and writes the run's result. */
static void *warden_main(void *arg);
static struct detsim_helper warden = { .name = "warden", .main = warden_main, .stack_bytes = 256u << 10 };

static void *warden_main(void *arg) {
  (void)arg;
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  while (__atomic_load_n(&S->ended, __ATOMIC_ACQUIRE) == 0) {
    if (detsim__helper_quit(&warden)) return NULL; /* a fork under TSan (sanitize.h) */
    futex_wait_shared(&S->ended, 0);
  }
  detsim__finish_as_world_ended();
}

void detsim__proc_become_world(void) {
  CHECK(!detsim__in_world);
  S->magic = DETSIM_WORLD_MAGIC;
  S->version = DETSIM_WORLD_VERSION;
  S->n_nodes = 1;
  S->n_hosts = 1;
  S->seed = detsim__seed();
  S->current = 0;
  S->end_node = -1;
  struct detsim_world_node *me = &S->nodes[0];
  snprintf(me->name, sizeof me->name, "localhost");
  me->parent = -1;
  me->incarnation = 1;
  /* Choice mode: the bytes are the world's from here, taken in the order
   * of the one history whichever process decides (fuzz/fuzz.h). */
  if (detsim__choices_on) {
    S->choices_on = 1;
    S->choices_len = detsim__choices_len();
    detsim__choices_move(S->choices, &S->choices_pos);
  }
  detsim__world_solo = true;
  detsim__in_world = true;
  detsim__fuzz_world_begin();
  detsim__sched_pct_share(&S->pct); /* strategy=pct: one set of change points */
  detsim__plan_share();              /* plans: one record, the processes named */
  detsim__node_index = 0;
  detsim__host_index = 0;
  detsim__clock_follow(&me->clock);
  detsim__sched_become_world();
  detsim__world_park_main(); /* pid, dispatcher, READY (it holds the world) */
  detsim__proc_ids_enter_world(); /* the pids' counter is the world's now */
  detsim__sig_mirror_nocldstop();
  net_host_ports_take();
  detsim__world_trace_solo_begin();
  /* Orphans of the world become the first process's for real, so its
   * teardown can reap every one. */
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  detsim__proc_start_warden();
  detsim__sched_refresh_time_stop();
}

void detsim__proc_start_warden(void) {
  /* Through the sanitizer's pthread_create, as every thread of the
   * runtime's: TSan's allocator works only on threads TSan knows. */
  warden.wake = &S->ended;
  int r = detsim__helper_start(&warden);
  CHECK_EQ(r, 0);
}

/* ---- fork ---- */

static pid_t fork_fails(int err) {
  errno = err;
  return -1;
}

bool detsim__proc_can_fork(void) { return S != NULL; }

/* The slot a new process takes: the first whose process is gone for good
 * (ended and waited for, or taken by its host's crash, its real process
 * reaped: pid 0), else the next unused one.  A slot holds nothing of its
 * last process that a pid or a parent could still reach: pids are never
 * reused, and a process's children were orphaned at its end. */
static bool names_parent(unsigned j) {
  for (unsigned k = 0; k < S->n_nodes; k++)
    if (S->nodes[k].parent == (int32_t)j) return true;
  return false;
}

static unsigned free_slot(void) {
  for (unsigned j = S->n_hosts; j < S->n_nodes; j++) {
    const struct detsim_world_node *n = &S->nodes[j];
    uint32_t st = __atomic_load_n(&n->state, __ATOMIC_ACQUIRE);
    /* (A process that left the world by exec_native keeps its children.) */
    if (__atomic_load_n(&n->pid, __ATOMIC_ACQUIRE) == 0 && n->reaped &&
        (st == DETSIM_NODE_EXITED || st == DETSIM_NODE_DOWN) && !names_parent(j))
      return j;
  }
  return S->n_nodes;
}

pid_t detsim__proc_fork(uintptr_t pc) {
  detsim_thread *self = detsim__self();
  CHECK(self != NULL);
  if (S == NULL) {
    detsim__msg("error: fork(): the world's shared region could not be mapped at 0x%llx in this process (the "
                "address was taken at the start), so a child could not share the simulation; fork fails with ENOMEM",
                (unsigned long long)DETSIM_WORLD_ADDR);
    return fork_fails(ENOMEM);
  }
  detsim__yield_aux(DETSIM_EV_proc_fork, NULL, pc, 0);
  if (!detsim__in_world) detsim__proc_become_world();
  unsigned slot = free_slot();
  if (slot >= DETSIM_WORLD_PROCESSES_MAX) {
    static bool told;
    if (!told) {
      told = true;
      detsim__msg("limit world_processes_max=%d reached: fork fails with EAGAIN (processes of one world alive or "
                  "not yet waited for, a scenario's nodes included)", DETSIM_WORLD_PROCESSES_MAX);
    }
    return fork_fails(EAGAIN);
  }
  struct detsim_world_node *n = &S->nodes[slot];
  const struct detsim_world_node *me = &S->nodes[detsim__node_index];
  memset(n, 0, sizeof *n);
  n->state = DETSIM_NODE_STARTING;
  n->host1 = detsim__host_index + 1;
  n->parent = (int32_t)detsim__node_index;
  /* The world's next id (proc/proc.h), taken by the baton holder. */
  n->vpid = detsim__proc_alloc();
  detsim__plan_process_made(n->vpid);
  n->pgid = detsim__proc_pgid();
  n->sid = detsim__proc_sid();
  n->nocldstop = me->nocldstop; /* its dispositions are its parent's */
  memcpy(n->name, S->nodes[detsim__host_index].name, sizeof n->name);
  n->incarnation = 1;
  n->clock = me->clock;
  n->wake_at = DETSIM_NO_DEADLINE;
  n->posted_at = DETSIM_NO_DEADLINE;
  n->posted_by = -1;
  /* The world first comes to the child through its only thread's word. */
  n->guess = (int32_t)(self - W.threads);
  for (unsigned j = 0; j < DETSIM_WORLD_NODES_MAX; j++) n->guess_after[j] = DETSIM_WORLD_NO_SLOT;
  memset(S->batons[slot], 0, sizeof S->batons[slot]);
  S->exec_outside[slot] = 0;
  if (slot == S->n_nodes) S->n_nodes = slot + 1;
  net_fork_share(+1);
  /* What the child draws first, drawn here in the history's order. */
  detsim__sched_fork_prepare();
  n->pct_top = detsim__sched_fork_child_priority();
  fork_slot = (int)slot;
  fork_parent_real_pid = REAL(getpid)();
  fork_from_main = !detsim__proc_is_forked() && REAL(syscall)(SYS_gettid) == fork_parent_real_pid;
  /* Under TSan, a fork of one simulated thread is one of one thread to
   * TSan too, and so a child it checks (sanitize.h). */
  detsim__helpers_pause_for_fork(detsim__live_threads());
  pid_t real = REAL(fork)();
  if (real != 0) detsim__helpers_after_fork_parent();
  fork_slot = -1;
  if (real < 0) {
    int e = errno;
    net_fork_share(-1);
    n->state = DETSIM_NODE_EXITED;
    n->reaped = 1;
    return fork_fails(e);
  }
  /* The child was set up by detsim__proc_atfork_child and holds the world. */
  if (real == 0) return 0;
  n->pid = real;
  detsim__event(DETSIM_EV_proc_fork, self, NULL, pc, slot);
  __atomic_store_n(&n->state, DETSIM_NODE_READY, __ATOMIC_RELEASE);
  return n->vpid;
}

bool detsim__proc_in_real_fork(void) { return fork_slot >= 0; }

bool detsim__proc_atfork_child(void) {
  if (fork_slot < 0) return false;
  unsigned slot = (unsigned)fork_slot;
  fork_slot = -1;
  detsim__helpers_forget_in_child();
  if (fork_from_main) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (REAL(getppid)() != fork_parent_real_pid) REAL(_exit)(128 + SIGKILL); /* the parent is gone already */
  }
  detsim__node_index = slot;
  detsim__world_trace_from = detsim__events();
  /* The net is per thread, and a fork's child has not inherited it. */
  detsim__trap_dispatch_thread = false;
  detsim__trap_thread_start();
  /* Its parent's group and session (this memory is still the parent's). */
  detsim__proc_set(S->nodes[slot].vpid, detsim__proc_pid(), detsim__proc_pgid(), detsim__proc_sid());
  detsim__sched_fork_child();
  detsim__sig_fork_child();
  net_fork_child();
  detsim__disk_fork_child(); /* it holds its parent's shared mappings too */
  detsim__world_start_dispatcher();
  /* It always runs: it also ends a run stopped by a signal from outside. */
  detsim__watchdog_start();
  /* The child runs its program (its atfork handlers first) when the world
   * first comes to it. */
  detsim__sched_wait_baton(detsim__self());
  return true;
}

/* ---- a forked process's end ---- */

void detsim__proc_orphan_children(void) {
  if (!detsim__in_world) return;
  /* Nobody waits for them: a zombie among them is gone at once. */
  for (unsigned j = 0; j < S->n_nodes; j++) {
    struct detsim_world_node *c = &S->nodes[j];
    if (c->parent != (int32_t)detsim__node_index) continue;
    c->parent = -1;
    if (__atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == DETSIM_NODE_EXITED) c->reaped = 1;
  }
}

void detsim__proc_end(int wait_status) {
  CHECK(detsim__proc_is_forked());
  CHECK(detsim__self() != NULL);
  struct detsim_world_node *me = &S->nodes[detsim__node_index];
  /* As the kernel ends a process: its descriptors close (a shared one
   * stays open in the other processes that hold it), and the robust
   * mutexes its threads hold lose their owner (another process may share
   * them). */
  net_close_all();
  detsim__fuzz_world_give(); /* fuzz mode: what it reached guides too */
  detsim__mutex_robust_process_died();
  me->wait_status = wait_status;
  detsim__proc_orphan_children();
  if (me->parent >= 0) {
    unsigned p = (unsigned)me->parent;
    struct detsim_world_node *pn = &S->nodes[p];
    if (!(pn->sig_inbox & (1ull << (SIGCHLD - 1)))) {
      pn->chld_pid = me->vpid;
      pn->chld_code = WIFEXITED(wait_status) ? CLD_EXITED : WCOREDUMP(wait_status) ? CLD_DUMPED : CLD_KILLED;
      pn->chld_status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : WTERMSIG(wait_status);
    }
    pn->sig_inbox |= 1ull << (SIGCHLD - 1);
    detsim__world_post(p, detsim__now_ns());
  } else {
    me->reaped = 1;
  }
  detsim__world_node_exit(WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status));
}

int detsim__proc_signal_status(int sig) {
  struct rlimit core;
  bool dumps = sig == SIGQUIT || sig == SIGILL || sig == SIGTRAP || sig == SIGABRT || sig == SIGBUS ||
               sig == SIGFPE || sig == SIGSEGV || sig == SIGXCPU || sig == SIGXFSZ || sig == SIGSYS;
  /* A core is dumped (WCOREDUMP) only where the limit allows one. */
  if (dumps && (getrlimit(RLIMIT_CORE, &core) != 0 || core.rlim_cur == 0)) dumps = false;
  return sig | (dumps ? 0x80 : 0);
}

/* ---- the end of the run ---- */

/* Whether the process with real pid `pid` is gone or a zombie. */
static bool real_process_dead(pid_t pid) {
  if (REAL(kill)(pid, 0) != 0) return errno == ESRCH;
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

int detsim__proc_holder_died(void) {
  if (!detsim__world_solo || detsim__node_index != 0) return -1;
  unsigned cur = __atomic_load_n(&S->current, __ATOMIC_ACQUIRE);
  if (cur == 0 || cur >= S->n_nodes) return -1;
  const struct detsim_world_node *n = &S->nodes[cur];
  pid_t pid = __atomic_load_n(&n->pid, __ATOMIC_ACQUIRE);
  /* One that ended as a process of the world handed the world over first;
   * one that is STARTING holds it through its exec (its new image may die
   * before it attaches). */
  uint32_t st = __atomic_load_n(&n->state, __ATOMIC_ACQUIRE);
  if (pid <= 0 || (st != DETSIM_NODE_READY && st != DETSIM_NODE_STARTING)) return -1;
  if (!real_process_dead(pid)) return -1;
  /* It may have handed the world over just before it ended, or ended the
   * run (a failure it found: the warden writes the result). */
  if (__atomic_load_n(&S->current, __ATOMIC_ACQUIRE) != cur) return -1;
  if (__atomic_load_n(&S->ended, __ATOMIC_ACQUIRE)) return -1;
  return n->vpid;
}

bool detsim__proc_world_gone(void) {
  if (!detsim__proc_is_forked()) return false;
  /* A scenario's world is its launcher's (a node dies with it); a run's
   * own, its first process's. */
  pid_t keeper = detsim__world_hosts() ? S->launcher_pid : S->nodes[0].pid;
  return keeper > 0 && REAL(kill)(keeper, 0) != 0 && errno == ESRCH;
}

void detsim__proc_host_down(unsigned host) {
  for (unsigned j = S->n_hosts; j < S->n_nodes; j++) {
    struct detsim_world_node *n = &S->nodes[j];
    if (n->host1 != host + 1) continue;
    uint32_t st = __atomic_load_n(&n->state, __ATOMIC_ACQUIRE);
    /* Nobody is left to wait for any of them. */
    n->reaped = 1;
    n->parent = -1;
    if (st == DETSIM_NODE_READY || st == DETSIM_NODE_STARTING) __atomic_store_n(&n->state, DETSIM_NODE_DOWN, __ATOMIC_RELEASE);
  }
}

void detsim__proc_host_release(unsigned host) {
  for (unsigned j = S->n_hosts; j < S->n_nodes; j++)
    if (S->nodes[j].host1 == host + 1 && __atomic_load_n(&S->nodes[j].state, __ATOMIC_ACQUIRE) == DETSIM_NODE_DOWN)
      __atomic_store_n(&S->nodes[j].kill_me, 1, __ATOMIC_RELEASE);
}

void detsim__proc_teardown(void) {
  if (!detsim__world_solo || detsim__node_index != 0) return;
  /* The parts of the processes that ended are for no trace now (a trace
   * wanted was merged before; trace_always merges after a pass). */
  if (!detsim__opt.trace_always) detsim__world_trace_parts_remove();
  unsigned n = S->n_nodes;
  for (unsigned j = 1; j < n; j++)
    if (S->nodes[j].pid > 0) REAL(kill)(S->nodes[j].pid, SIGKILL);
  /* In creation order (by pid: slots are reused): a parent is reaped
   * before its children, which are then this process's (it is their
   * subreaper). */
  for (int32_t after = 0;;) {
    int next = -1;
    for (unsigned j = 1; j < n; j++)
      if (S->nodes[j].pid > 0 && S->nodes[j].vpid > after && (next < 0 || S->nodes[j].vpid < S->nodes[next].vpid))
        next = (int)j;
    if (next < 0) break;
    after = S->nodes[next].vpid;
    while (REAL(waitpid)(S->nodes[next].pid, NULL, __WALL) < 0 && errno == EINTR) {
    }
    S->nodes[next].pid = 0;
  }
}
