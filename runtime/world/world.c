/* This process as one node of a world (world.h, world_abi.h).
 *
 * Rules of this file:
 *  - Only the node holding the world's baton reads or writes the shared
 *    header, except the futex words (`wake`, `batons`, `ended`, `state`,
 *    `bell`, `restart_done`).
 *  - The history (clock, event count, hash) lives in each process's own
 *    variables, where the fast path reads them; it is copied out to the
 *    header when the world leaves this node and copied in when it comes
 *    back, so the nodes' events form one history.
 *  - The world comes to a node through one of its simulated threads (the
 *    one it guessed will run first, woken through its baton word with
 *    DETSIM_BATON_WORLD) or through its dispatcher, a real thread outside
 *    the simulation for when no thread can be guessed (the first entry).
 *    Either picks one of the node's threads (or passes the world on) with
 *    the same scheduler code (sched.c's dispatch_choice).
 */
#include "world/world.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/core.h"
#include "time/time.h"
#include "limits.h"
#include "signal/signal.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sanitize/sanitize.h"
#include "sched/sched.h"
#include "trace/trace.h"
#include "fuzz/fuzz.h"

bool detsim__in_world;
unsigned detsim__node_index;
unsigned detsim__host_index;
bool detsim__world_solo;
struct detsim_world_shared *detsim__ws;

#define S detsim__ws

static struct detsim_world_node *self_node(void) { return &S->nodes[detsim__node_index]; }

/* Shared (not private) futexes: the words live in memory of several
 * processes. */
static void futex_wait_shared(uint32_t *word, uint32_t val) {
  REAL(syscall)(SYS_futex, word, FUTEX_WAIT, val, NULL, NULL, 0);
}
static void futex_wake_shared(uint32_t *word) {
  REAL(syscall)(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static _Noreturn void attach_error(const char *fmt, const char *detail) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, detail);
  detsim__msg("error: %s=%s: %s", DETSIM_WORLD_ENV, getenv(DETSIM_WORLD_ENV) ? getenv(DETSIM_WORLD_ENV) : "", msg);
  REAL(syscall)(SYS_exit_group, DETSIM_EXIT_USAGE);
  __builtin_unreachable();
}

void detsim__world_attach(const char *spec) {
  char *end;
  errno = 0;
  long fd = strtol(spec, &end, 10);
  if (end == spec || *end != ',' || fd < 0 || fd > INT_MAX || errno)
    attach_error("%s", "expected FD,NODE (set by the world launcher, not by hand)");
  const char *n = end + 1;
  unsigned long node = strtoul(n, &end, 10);
  if (end == n || *end != '\0' || node >= DETSIM_WORLD_NODES_MAX) attach_error("%s", "bad node index");
  void *want = (void *)(uintptr_t)DETSIM_WORLD_ADDR;
  void *p = mmap(want, DETSIM_WORLD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE,
                 (int)fd, 0);
  if (p == MAP_FAILED) attach_error("cannot map the world: %s", strerror(errno));
  if (p != want) attach_error("%s", "the world's address is taken in this process");
  S = p;
  if (S->magic != DETSIM_WORLD_MAGIC) attach_error("%s", "not a detsim world");
  if (S->version != DETSIM_WORLD_VERSION) attach_error("%s", "a world of another detsim version");
  if (node >= S->n_nodes) attach_error("%s", "no such node in this world");
  if (S->nodes[node].state != DETSIM_NODE_STARTING) attach_error("%s", "that node is not starting");
  detsim__node_index = (unsigned)node;
  detsim__host_index = (unsigned)node;
  detsim__in_world = true;
  /* The node's clocks read through its record, which a skew fault sets
   * (a restarted process finds it as its predecessor left it). */
  detsim__clock_follow(&S->nodes[node].clock);
  /* The descriptor stayed open across the re-execution without address
   * randomization; it is kept out of the program's way (high, close-on-
   * exec) for an exec of this node's processes, which hands it on. */
  if (fd > 2) detsim__proc_keep_world_fd((int)fd);
}

void detsim__world_choices_attach(void) {
  /* A scenario's launcher loaded them; a run's own world has them since
   * its first fork or exec (an exec's new image attaches here too). */
  if (!detsim__in_world || !S->choices_on) return;
  CHECK_LE(S->choices_len, DETSIM_CHOICES_BYTES_MAX);
  detsim__choices_share(S->choices, S->choices_len, &S->choices_pos);
}

/* ---- the history, carried across nodes ---- */

static void publish(void) {
  S->now_ns = detsim__now_ns();
  detsim__history_get(&S->events, &S->hash);
}

static void take(void) {
  CHECK_GE(S->now_ns, detsim__now_ns()); /* the world's clock never goes back */
  detsim__clock.now_ns = S->now_ns;
  detsim__history_set(S->events, S->hash);
}

/* ---- the dispatcher ---- */

bool detsim__world_enter(void) {
  if (__atomic_load_n(&S->ended, __ATOMIC_ACQUIRE)) return false; /* the launcher ends us */
  take();
  return true;
}

void detsim__sched_dispatch(void);

static void *dispatcher_main(void *arg);
static struct detsim_helper dispatcher = { .name = "dispatcher", .main = dispatcher_main, .stack_bytes = 1u << 20 };

static void *dispatcher_main(void *arg) {
  (void)arg;
  /* Signals are the program's: they must not land on this thread. */
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  uint32_t *wake = &self_node()->wake;
  for (;;) {
    while (__atomic_load_n(wake, __ATOMIC_ACQUIRE) == 0) {
      /* Stopped for a fork under TSan (sanitize.h): its process holds the
       * world then, so the world is not this thread's to take. */
      if (detsim__helper_quit(&dispatcher)) return NULL;
      futex_wait_shared(wake, 0);
    }
    __atomic_store_n(wake, 0, __ATOMIC_RELAXED);
    if (detsim__world_enter()) detsim__sched_dispatch();
  }
  return NULL;
}

uint32_t *detsim__world_baton(unsigned slot) {
  CHECK_LT(slot, DETSIM_WORLD_THREADS_MAX);
  return &S->batons[detsim__node_index][slot];
}

/* The launcher asks every node for its last events when the world fails:
 * a node is parked then (it does not hold the world), so its trace is still. */
static void dump_request(int sig) {
  (void)sig;
  detsim__report_no_flush();
  /* The world ends for a signal from outside: what this node's program
   * wrote reaches its log before the launcher kills it. */
  if (__atomic_load_n(&S->outside_signal, __ATOMIC_ACQUIRE)) detsim__outside_flush_stdio();
  /* Fuzz mode: this node's coverage, whatever the world's end (the
   * launcher asks every node then, and a crashed one before its kill). */
  detsim__fuzz_write_out();
  if (detsim__world_solo) {
    /* A run's own world: the first process asks, and merges the parts
     * into the run's trace (world_trace_merge.c); the last events are its
     * to print. */
    if (S->end_class == DETSIM_CLASS_deadlock) detsim__world_print_blocked();
    if (S->trace_merge) detsim__world_trace_part();
  } else if (__atomic_load_n(&self_node()->state, __ATOMIC_ACQUIRE) == DETSIM_NODE_DOWN) {
    /* Crashed: the launcher kills it next; its records would go with it. */
    detsim__world_trace_part();
  } else {
    bool failed = S->end_class != DETSIM_CLASS_pass;
    if (failed) {
      if (S->end_class == DETSIM_CLASS_deadlock) detsim__world_print_blocked();
      detsim__msg("the world ended in another node; this node's last events (event time thread kind object value site):");
      detsim__trace_print_tail(2, (unsigned)detsim__opt.trace_tail);
    }
    bool as_expected = detsim__opt.expect_history[0] && strtoull(detsim__opt.expect_history, NULL, 16) == S->end_history;
    if ((failed || detsim__opt.trace_always) && !as_expected) detsim__world_trace_part();
  }
  __atomic_add_fetch(&S->dumps_done, 1, __ATOMIC_RELEASE);
  futex_wake_shared(&S->dumps_done);
}

void detsim__world_park_main(void) {
  struct detsim_world_node *me = self_node();
  me->pid = REAL(getpid)(); /* the kernel's: the launcher signals it */
  if (detsim__fuzz_counters() > me->fuzz_counters) me->fuzz_counters = detsim__fuzz_counters();
  me->idle = 0;
  me->wake_at = DETSIM_NO_DEADLINE;
  me->posted_at = DETSIM_NO_DEADLINE; /* a fresh process has no waits yet */
  /* Nor threads: the dispatcher takes the world the first time. */
  me->guess = DETSIM_WORLD_NO_SLOT;
  me->posted_by = -1;
  for (unsigned j = 0; j < DETSIM_WORLD_NODES_MAX; j++) me->guess_after[j] = DETSIM_WORLD_NO_SLOT;
  /* Whatever a restarted node's predecessor had set. */
  detsim__sig_mirror_nocldstop();
  detsim__world_start_dispatcher();
  __atomic_store_n(&me->state, DETSIM_NODE_READY, __ATOMIC_RELEASE);
  futex_wake_shared(&me->state);
  /* The new image of an exec holds the world already (proc_exec.c): its
   * dispatcher takes it now, once the slot is a candidate again (a choice
   * it makes may give the world to a process that looks at this one). */
  if (detsim__proc_exec_image_holds_world()) {
    __atomic_store_n(&me->wake, 1, __ATOMIC_RELEASE);
    futex_wake_shared(&me->wake);
  }
}

void detsim__world_start_dispatcher(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = dump_request;
  sa.sa_flags = SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  REAL(sigaction)(DETSIM_WORLD_DUMP_SIGNAL, &sa, NULL);
  dispatcher.wake = &self_node()->wake;
  int r = detsim__helper_start(&dispatcher);
  if (r != 0) {
    detsim__msg("error: cannot start this node's dispatcher thread: %s", strerror(r));
    REAL(syscall)(SYS_exit_group, DETSIM_EXIT_USAGE);
  }
}

/* ---- choices over nodes ---- */

/* A node held until another listens is not ready for anyone. */
/* Nor is a stopped process (proc_stop.c): its deadlines and what others
 * send it wait until it is continued. */
static bool is_other_ready(unsigned j) {
  return j != detsim__node_index && __atomic_load_n(&S->nodes[j].state, __ATOMIC_ACQUIRE) == DETSIM_NODE_READY &&
         S->nodes[j].after1 == 0 && S->nodes[j].stopped == 0;
}

void detsim__world_listened(void) {
  if (!detsim__world_hosts()) return;
  for (unsigned j = 0; j < S->n_nodes; j++)
    if (S->nodes[j].after1 == detsim__host_index + 1) {
      /* Released at this point of the history: the node's first choice
       * comes at the world's next one, as any runnable node's. */
      S->nodes[j].after1 = 0;
      S->nodes[j].idle = 0;
    }
}

int detsim__world_held_node(unsigned *waits_for) {
  for (unsigned j = 0; j < S->n_nodes; j++)
    if (S->nodes[j].after1 && S->nodes[j].state == DETSIM_NODE_READY) {
      *waits_for = S->nodes[j].after1 - 1;
      return (int)j;
    }
  return -1;
}

unsigned detsim__world_candidates(unsigned *out) {
  unsigned k = 0;
  for (unsigned j = 0; j < S->n_nodes; j++)
    if (is_other_ready(j) && !S->nodes[j].idle && !detsim__world_paused(j)) out[k++] = j;
  return k;
}

/* When idle node j has something to do: its own earliest deadline, or the
 * earliest arrival another node sent it. */
static uint64_t idle_until(const struct detsim_world_node *n) {
  return n->wake_at < n->posted_at ? n->wake_at : n->posted_at;
}

uint64_t detsim__world_next_wake(void) {
  uint64_t d = DETSIM_NO_DEADLINE;
  for (unsigned j = 0; j < S->n_nodes; j++) {
    if (!is_other_ready(j)) continue;
    /* A paused node's time comes at the end of its pause (or later, when
     * it is idle until later): one with work to do is not idle, and its
     * time is the pause's end. */
    uint64_t w = S->nodes[j].idle ? idle_until(&S->nodes[j]) : DETSIM_NO_DEADLINE;
    if (detsim__world_paused(j)) {
      uint64_t end = detsim__world_paused_until(j);
      w = !S->nodes[j].idle ? end : w > end ? w : end;
    }
    if (w < d) d = w;
  }
  return d;
}

void detsim__world_wake_due(uint64_t now) {
  for (unsigned j = 0; j < S->n_nodes; j++)
    if (is_other_ready(j) && S->nodes[j].idle && idle_until(&S->nodes[j]) <= now) S->nodes[j].idle = 0;
}

/* The word that gives the world to node `node` now: its guessed thread's,
 * else its dispatcher's. */
static uint32_t *entry_word(unsigned node, uint32_t *value) {
  struct detsim_world_node *n = &S->nodes[node];
  int32_t slot = n->guess;
  if (n->posted_by >= 0 && n->posted_at <= S->now_ns && n->guess_after[n->posted_by] != DETSIM_WORLD_NO_SLOT)
    slot = n->guess_after[n->posted_by];
  if (slot == DETSIM_WORLD_NO_SLOT) {
    *value = 1;
    return &n->wake;
  }
  *value = DETSIM_BATON_WORLD;
  return &S->batons[node][slot];
}

void detsim__world_hand_to(unsigned node, bool idle, uint64_t wake_at, int32_t guess) {
  CHECK_LT(node, S->n_nodes);
  CHECK(node != detsim__node_index);
  /* Only a parked, attached node can take the world. */
  CHECK_EQ(__atomic_load_n(&S->nodes[node].state, __ATOMIC_ACQUIRE), DETSIM_NODE_READY);
  struct detsim_world_node *me = self_node();
  me->idle = idle;
  me->wake_at = wake_at;
  /* Guesses name only threads that wait for their baton now (published
   * by the release below). */
  me->guess = guess;
  for (unsigned j = 0; j < S->n_nodes; j++)
    if (me->guess_after[j] != DETSIM_WORLD_NO_SLOT && !detsim__sched_slot_waits((unsigned)me->guess_after[j]))
      me->guess_after[j] = DETSIM_WORLD_NO_SLOT;
  publish();
  /* A node leaving the world writes its records before the world moves on
   * (its hand-over is its last event): the world's trace may want them. */
  if (__atomic_load_n(&me->state, __ATOMIC_ACQUIRE) == DETSIM_NODE_EXITED) detsim__world_trace_part();
  S->current = node;
  uint32_t value, *word = entry_word(node, &value);
  __atomic_store_n(word, value, __ATOMIC_RELEASE);
  futex_wake_shared(word);
}

/* The node's waits computed their wake times from what was in flight when
 * they blocked: when the world next comes to it, they compute them again
 * (sched.c), which is all an arrival later than now needs; one due now
 * makes the node a candidate at once.  An idle node is woken by nothing
 * else but its own deadlines (and faults: a pause's end, a SIGTERM), so
 * every change that may make another node's wait ready must be posted. */
void detsim__world_post(unsigned node, uint64_t at) {
  CHECK_LT(node, S->n_nodes);
  CHECK(node != detsim__node_index);
  struct detsim_world_node *n = &S->nodes[node];
  uint64_t now = detsim__now_ns();
  if (at < now) at = now;
  if (at < n->posted_at) {
    n->posted_at = at;
    n->posted_by = (int32_t)detsim__node_index;
  }
  if (at == now) n->idle = 0;
}

unsigned detsim__world_host_of(unsigned node) {
  CHECK_LT(node, DETSIM_WORLD_NODES_MAX);
  return S->nodes[node].host1 ? S->nodes[node].host1 - 1 : node;
}

void detsim__world_post_host(unsigned host, uint64_t at) {
  if (host == detsim__host_index && at > detsim__now_ns()) detsim__sched_times_changed();
  for (unsigned j = 0; j < S->n_nodes; j++)
    if (j != detsim__node_index && detsim__world_host_of(j) == host) detsim__world_post(j, at);
}

void detsim__world_touch(void) {
  for (unsigned j = 0; j < S->n_nodes; j++)
    if (j != detsim__node_index) detsim__world_post(j, detsim__now_ns());
}

bool detsim__world_take_posts(int *due_from) {
  struct detsim_world_node *me = self_node();
  bool posted = me->posted_at != DETSIM_NO_DEADLINE;
  *due_from = posted && me->posted_at <= detsim__now_ns() ? me->posted_by : -1;
  me->posted_at = DETSIM_NO_DEADLINE;
  me->posted_by = -1;
  return posted;
}

void detsim__world_learn_guess(int due_from, unsigned slot) {
  if (due_from >= 0) self_node()->guess_after[due_from] = (int16_t)slot;
}

/* ---- the end of a node, the end of the world ---- */

void detsim__sched_leave_node(void);

void detsim__world_node_exit(int status) {
  struct detsim_world_node *me = self_node();
  detsim__event(DETSIM_EV_node_exit, detsim__self(), NULL, 0, (uint32_t)status);
  me->exit_status = status;
  __atomic_store_n(&me->state, DETSIM_NODE_EXITED, __ATOMIC_RELEASE);
  if (detsim__world_hosts() && !detsim__proc_is_forked()) {
    /* A node's first process ends the node, as a container's main process
     * does: every process forked on it ends now (their sockets are the
     * host's, closed with it), and the launcher kills them. */
    detsim__proc_host_down(detsim__host_index);
    detsim__proc_host_release(detsim__host_index);
    detsim__world_ring_launcher();
  }
  if (me->term_sent) detsim__world_stopped(detsim__node_index);
  if (me->client) {
    detsim__world_progress();
    CHECK_GE(S->clients_live, 1);
    if (--S->clients_live == 0) {
      /* The last client's exit ends a passing world: only trace_always
       * wants its records. */
      if (detsim__opt.trace_always) detsim__world_trace_part();
      detsim__world_end(DETSIM_CLASS_pass, 0, NULL);
      return;
    }
  }
  detsim__sched_leave_node();
}

void detsim__world_end(int cls, int status, const char *extra) {
  if (__atomic_load_n(&S->ended, __ATOMIC_ACQUIRE)) return;
  publish();
  S->end_class = cls;
  S->end_status = status;
  S->end_node = (int32_t)detsim__node_index;
  S->end_events = detsim__events();
  S->end_history = detsim__history_hash();
  S->end_now_ns = detsim__now_ns();
  snprintf(S->end_extra, sizeof S->end_extra, "%s", extra ? extra : "");
  __atomic_store_n(&S->ended, 1, __ATOMIC_RELEASE);
  futex_wake_shared(&S->ended);
  detsim__world_ring_launcher();
}

void detsim__world_ring_launcher(void) {
  __atomic_add_fetch(&S->bell, 1, __ATOMIC_RELEASE);
  futex_wake_shared(&S->bell);
}

/* ---- names and addresses ---- */

uint32_t detsim__world_node_ip(unsigned node) {
  return (uint32_t)127 << 24 | (uint32_t)DETSIM_WORLD_NET_B2 << 8 | (node + 1);
}

int detsim__world_node_by_name(const char *name) {
  if (!detsim__in_world) return -1;
  for (unsigned j = 0; j < S->n_hosts; j++)
    if (strncmp(S->nodes[j].name, name, DETSIM_WORLD_NAME_BYTES) == 0) return (int)j;
  return -1;
}
