/* A world of several nodes: the shared memory that the launcher
 * (tools/world) and every node's runtime map.
 *
 * A world is one scheduler, one clock and one network shared by several
 * processes (nodes).  Exactly one node holds the world's baton at a time;
 * inside it, exactly one thread holds the node's baton (sched.c).  A node
 * hands the world to another by publishing the history (clock, event count,
 * hash) here and waking the thread of that node guessed to run first (its
 * word in `batons`), or that node's dispatcher (world.c); either picks one
 * of its node's threads or passes the world on.
 *
 * The mapping sits at the same fixed address in every process, so the
 * network's objects (allocated from the arena behind this header) can point
 * at each other across nodes.  Only the baton holder writes any of it,
 * except the futex words and the launcher's fields before the start.
 *
 * This header is the contract between the launcher and the runtime: both
 * check `magic` and `version`.
 */
#ifndef DETSIM_WORLD_ABI_H
#define DETSIM_WORLD_ABI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "fuzz_abi.h"

#define DETSIM_WORLD_MAGIC 0x646c726f776d6973ull /* "simworld" */
#define DETSIM_WORLD_VERSION 25u
/* Where the world's region is mapped in every process of a world.  It must
 * be ordinary application memory in every kind of build (the layouts of
 * clang 19's compiler-rt on x86_64 Linux):
 *  - ThreadSanitizer: its "pie binaries" range 0x550000000000-0x5a0000000000
 *    (Mapping48AddressSpace: kMidAppMem); below is its shadow and meta
 *    shadow (0x100000000000-0x380000000000), above it a protected gap;
 *  - MemorySanitizer: its app-2 range 0x510000000000-0x600000000000
 *    (kMemoryLayout); 0x200000000000-0x500000000000 is shadow and origin;
 *  - AddressSanitizer: HighMem (0x10007fff8000 up);
 *  - unsanitized: free.
 * And clear of the programs themselves: a PIE executable and its brk heap
 * land at 0x555555554000 without address randomization (the runtime's
 * re-execution) and in 0x550000000000-0x570000000000 with it; shared
 * libraries, mmap and stacks sit near 0x7f0000000000 (TSan's heap at
 * 0x720000000000 or 0x7a0000000000).  So 0x580000000000, with its
 * DETSIM_WORLD_BYTES ending far below TSan's 0x5a0000000000
 * (testsuite/sanitize/world_addr_*.c map it in each kind of build). */
#define DETSIM_WORLD_ADDR 0x580000000000ull
/* Virtual size of the mapping (sparse: pages exist once touched). */
#define DETSIM_WORLD_BYTES (1ull << 32)
_Static_assert(DETSIM_WORLD_ADDR + DETSIM_WORLD_BYTES <= 0x5a0000000000ull,
               "the world's region ends inside ThreadSanitizer's and MemorySanitizer's application ranges");
/* Simulated threads of a node: runtime/limits.h's DETSIM_MAX_THREADS. */
#define DETSIM_WORLD_THREADS_MAX 1024
#define DETSIM_WORLD_NO_SLOT (-1)
/* A thread's word in `batons`: run (its node's baton, given by a thread of
 * the node), or take the world (it came to the node from another). */
#define DETSIM_BATON_RUN 1u
#define DETSIM_BATON_WORLD 2u
/* Its baton word moved (a run's first fork moves the words into the shared
 * region, world_proc.c): wait again on the new one. */
#define DETSIM_BATON_MOVED 4u
/* Nodes in one world, and so addresses 127.0.1.1 .. 127.0.1.64. */
#define DETSIM_WORLD_NODES_MAX 64
#define DETSIM_WORLD_NAME_BYTES 32
/* The world's replay command, NUL included (a longer one is cut). */
#define DETSIM_WORLD_REPLAY_BYTES 4096
/* "FD,NODE": the world's memory file descriptor and this node's index. */
#define DETSIM_WORLD_ENV "DETSIM_WORLD"
#define DETSIM_WORLD_ARENA_CLASSES 40
/* The simulated disk (runtime/disk/, docs/disk.md): the launcher gives each
 * node its data directory (its working directory, or the scenario's `data`
 * under it) and a directory for its undo journal beside it. */
#define DETSIM_DISK_DIR_ENV "DETSIM_DISK_DIR"
#define DETSIM_DISK_JOURNAL_ENV "DETSIM_DISK_JOURNAL"
/* The storage fault kinds with windows (eio .. edquot in
 * fault_kinds.inc order). */
#define DETSIM_DISK_FAULT_WINDOWS 6
/* Sent by the launcher to the nodes of a failed world: print your last
 * events (a real-time signal the runtime reserves; SIGRTMAX - 3 is the
 * watchdog's). */
#define DETSIM_WORLD_DUMP_SIGNAL (SIGRTMAX - 4)
/* PCT's change points a world holds (runtime/limits.h's
 * DETSIM_PCT_DEPTH_MAX). */
#define DETSIM_WORLD_PCT_CHANGES_MAX 64
/* A run's own world's trace parts: the absolute path of the run's trace
 * (a DETSIM_PATH_BYTES_MAX path, made absolute). */
#define DETSIM_WORLD_TRACE_PATH_BYTES 2048
/* The history hash before the first event (runtime/trace/trace.c). */
#define DETSIM_HISTORY_START 0x6a09e667f3bcc909ull

enum detsim_node_state {
  DETSIM_NODE_EMPTY = 0,
  DETSIM_NODE_STARTING, /* launched, its runtime not attached yet */
  DETSIM_NODE_READY,    /* attached and parked: waits for the world's baton */
  DETSIM_NODE_EXITED,   /* its process ended (exit_status) */
  DETSIM_NODE_DEAD,     /* died outside the simulation */
  DETSIM_NODE_DOWN,     /* crashed by a fault: the launcher kills its process;
                           a restart fault starts a fresh one */
};

/* How a node reads the world's one virtual clock (a skew fault sets it;
 * runtime/time/clock.c reads it): its CLOCK_REALTIME is offset from the other
 * nodes', and all its clocks run at 1 + drift_ppb / 1e9 of virtual time. */
struct detsim_node_clock {
  int64_t realtime_offset_ns;  /* skew: from the start */
  int64_t drift_ppb;
  int64_t step_ns;             /* the sum of its clock steps so far: a `step`
                                  fault moves CLOCK_REALTIME at once */
};

/* strategy=pct (runtime/sched/sched.c): the change points, which of them
 * came, and the next priority a lowered thread takes.  A run's own world
 * holds them from its first fork or exec, so the whole world's threads
 * share one set (each change point lowers whichever thread runs there). */
struct detsim_world_pct {
  uint32_t on;
  uint32_t changes, next;
  uint32_t pad;
  int64_t lowest;
  uint64_t change_at[DETSIM_WORLD_PCT_CHANGES_MAX];
};

struct detsim_world_node {
  uint32_t state;          /* enum detsim_node_state */
  uint32_t wake;           /* futex word: 1 = the node holds the world's
                              baton, and its dispatcher thread takes it */
  int32_t pid;
  uint32_t client;         /* the world passes when every client exited 0 */
  uint32_t idle;           /* nothing of it could run when it last looked */
  /* Which thread of the node takes the world when it comes back (through
   * its word in `batons`), so that it is likely the one to run first: a
   * node hand-over is then one context switch, not two.  A guess only:
   * the thread makes the node's choice, whichever that is.  Slots of
   * threads waiting for their baton, or DETSIM_WORLD_NO_SLOT (the
   * dispatcher takes the world). */
  int32_t guess;           /* when the world comes back for its own reasons */
  int32_t posted_by;       /* the node whose post came first (posted_at) */
  int16_t guess_after[DETSIM_WORLD_NODES_MAX]; /* when it comes back with a
                              post from node j: the thread that ran first
                              the last time it did */
  uint64_t wake_at;        /* while idle: its earliest deadline */
  uint64_t posted_at;      /* the earliest time something other nodes sent
                              it since it last looked concerns its waits (an
                              arrival); UINT64_MAX: nothing was sent.  An idle
                              node sleeps until then or until wake_at. */
  int32_t exit_status;
  uint32_t incarnation;    /* starts of this node (restarts add one) */
  uint64_t paused_until;   /* a pause fault: not scheduled before then */
  uint32_t protect;        /* crash faults never pick it (the scenario's `protect`) */
  uint32_t down_silent;    /* DOWN as a dead host: its peers hear nothing */
  uint32_t kill_me;        /* DOWN and out of the world's way: the launcher
                              may kill its process now */
  uint32_t term_sent;      /* this incarnation was sent the world's SIGTERM */
  uint64_t sig_inbox;      /* signals for it (bit s-1) from another node's kill()
                              or the world's SIGTERM, taken when the world next
                              comes to it */
  struct detsim_node_clock clock; /* kept across restarts: the same host */
  char name[DETSIM_WORLD_NAME_BYTES];
  int32_t vpid;            /* its process's virtual pid (runtime/proc/proc.h);
                              `pid` above is the kernel's */
  int32_t sig_from[64];    /* the sender's virtual pid of each signal in sig_inbox */
  /* A process made by fork (world_proc.c; 0 for a node of the scenario,
   * which is its own host): */
  uint32_t host1;          /* 1 + the slot of the host whose address, name
                              and clocks it uses; 0: its own */
  int32_t parent;          /* the slot of its parent process; -1: none (the
                              scenario's nodes, orphans) */
  int32_t wait_status;     /* EXITED: as waitpid reports it */
  uint32_t reaped;         /* EXITED and waited for (or reaped at its end:
                              SIG_IGN, SA_NOCLDWAIT, an orphan) */
  /* The SIGCHLD in sig_inbox: the first child that ended since the
   * process last took it (a standard signal keeps its first instance's
   * siginfo): its pid, CLD_* code and status; code 0 when none. */
  int32_t chld_pid, chld_code, chld_status;
  /* Its process group and session (virtual ids; runtime/proc/proc.h):
   * a process that starts leads both, a forked one inherits its parent's,
   * setsid and setpgid change them.  0 before its process has its ids. */
  int32_t pgid, sid;
  /* Its simulated disk (runtime/disk/): it lost power (a crash as a dead
   * host at level 3), so its next incarnation rolls the disk back before
   * its main, says so (rolled_back) and what it lost; the storage fault
   * windows open on it (until, rate in ppm), by kind from eio on. */
  uint32_t disk_lost_power;
  uint32_t disk_rolled_back;
  uint64_t disk_lost_writes, disk_lost_names;
  uint64_t disk_until[DETSIM_DISK_FAULT_WINDOWS];
  uint32_t disk_ppm[DETSIM_DISK_FAULT_WINDOWS];
  uint32_t disk_pad;
  /* The scenario's `start NAME after NODE listens`: 1 + NODE's index
   * while this node is held (parked, never a candidate), 0 once NODE's
   * first listen released it (or when it starts at once). */
  uint32_t after1;
  /* Fuzz mode (fuzz_abi.h): the most coverage counters a process of it
   * registered, so the launcher lays out the world's merged coverage file
   * whatever parts were written. */
  uint32_t fuzz_counters;
  /* A host's slot: how many times its command started (a restart adds
   * one; an exec, which adds an incarnation, does not): its boot. */
  uint32_t boots;
  /* strategy=pct in a run's own world: the highest priority of its
   * threads that could run when it last handed the world over (of every
   * live one when none could), which the world's choices compare with the
   * others' (runtime/sched/sched_world.c). */
  int64_t pct_top;
  /* Job control (runtime/proc/proc_stop.c): the stop signal that stopped
   * its process (0: it runs; never scheduled while set), and the change a
   * wait has not reported yet: (sig << 8) | 0x7f stopped, 0xffff
   * continued (waitpid's words), 0 none.  nocldstop: its SIGCHLD has
   * SA_NOCLDSTOP (a child's stop or continue sends it none). */
  uint32_t stopped;
  int32_t stop_report;
  uint32_t nocldstop;
  uint32_t stop_pad;
  /* Signals its own pending sets lose when it next takes sig_inbox (bit
   * s-1), before the inbox's are added: a SIGCONT sent to it discards the
   * stop signals pending there, a stop signal a SIGCONT. */
  uint64_t sig_flush;
  /* A host's slot: the ephemeral ports and unix autobind names its
   * processes draw (runtime/net/net_sock.c), shared by every process of
   * the host as Linux's per network namespace; ports_ready 0 until its
   * first draw (a restart, a new boot, draws afresh). */
  uint32_t ports_ready;
  uint32_t ephemeral_next;
  uint32_t unix_autobind_next;
};

/* Faults, drawn from the seed at the world's start (world_faults.c). */
enum detsim_fault_kind {
  DETSIM_FAULT_NONE = 0,
#define DETSIM_FAULT(NAME, name, lifecycle, desc) DETSIM_FAULT_##NAME,
#include "fault_kinds.inc"
#undef DETSIM_FAULT
  DETSIM_FAULT_KINDS
};
/* Entries of a seed's schedule: world_faults.c checks at compile time that
 * the most each kind draws fits. */
#define DETSIM_WORLD_FAULTS_MAX 64
#define DETSIM_WORLD_CHECKS_MAX 64
#define DETSIM_WORLD_CHECK_NAME_BYTES 56
/* Coverage points (DETSIM_SOMETIMES/REACHABLE/UNREACHABLE) of every node,
 * by kind and name; a longer name is cut (the runtime warns). */
#define DETSIM_WORLD_POINTS_MAX 128
#define DETSIM_WORLD_POINT_NAME_BYTES 96

struct detsim_world_fault {
  uint64_t at, until;
  uint32_t kind, node;
  uint64_t side_a;         /* partitions: the nodes of side A (a bit each) */
  uint64_t arg;
  int64_t drift_ppb;       /* skew: the node's clock rate */
  uint32_t group;          /* the drawn fault it belongs to (a partition and its heal
                              are one), which the fault_drop option names */
  uint32_t pad;
};

struct detsim_world_check {
  char name[DETSIM_WORLD_CHECK_NAME_BYTES];
  uint64_t passed;
};

struct detsim_world_point {
  char name[DETSIM_WORLD_POINT_NAME_BYTES];
  uint64_t hits, evals;
  uint32_t kind, pad;
};

struct detsim_world_shared {
  uint64_t magic;
  uint32_t version;
  uint32_t n_nodes;        /* slots in use: the hosts, then forked processes */
  uint64_t seed;
  /* The hosts: slots 0 .. n_hosts - 1 are the scenario's nodes (a run's
   * own world: 1, its first process); every slot after them is a process
   * forked on one of them (host1).  Addresses, faults and the launcher's
   * processes are the hosts'. */
  uint32_t n_hosts;
  /* The launcher's real pid (0 in a run's own world): a process of the
   * world whose launcher is gone ends itself (its watchdog looks). */
  int32_t launcher_pid;
  /* The history, carried from node to node at each hand-over. */
  uint64_t now_ns, events, hash;
  uint32_t current;        /* the node holding the world's baton */
  uint32_t clients_live;
  /* The end: the node that ends the world fills these, then sets `ended`
   * (a futex word the launcher waits on). */
  uint32_t ended;
  int32_t end_class;       /* DETSIM_CLASS_* (classes.inc order) */
  int32_t end_status;      /* exit class: the node's status */
  int32_t end_node;        /* -1: the world as a whole */
  uint64_t end_events, end_history, end_now_ns;
  char end_extra[256];
  /* The network's shared state (net_sock.c): every bound socket, every
   * socket, every socket with multicast memberships, the links stalled by
   * partitions and clogs (cut_until[from][to]: what is sent before then
   * waits), and those of partitions only, where UDP datagrams are lost
   * instead (drop_until[from][to]). */
  void *bound_list;
  void *all_socks;
  void *mcast_list;
  uint64_t cut_until[DETSIM_WORLD_NODES_MAX][DETSIM_WORLD_NODES_MAX];
  uint64_t drop_until[DETSIM_WORLD_NODES_MAX][DETSIM_WORLD_NODES_MAX];
  /* Faults (world_faults.c): the level, the schedule, what happened. */
  uint32_t level;
  uint32_t faults_drawn;
  uint32_t n_faults, next_fault;
  uint32_t n_groups, groups_dropped; /* faults drawn, and left out by fault_drop */
  struct detsim_world_fault faults[DETSIM_WORLD_FAULTS_MAX];
  uint64_t fault_counts[DETSIM_FAULT_KINDS];
  uint64_t healed_at;      /* every fault is over by then: the liveness phase */
  /* Per-datagram and per-call faults (world_io_faults.c): their window's
   * end (0: never opened), rates in parts per million, what they did. */
  uint64_t udp_until, short_until;
  uint32_t udp_loss_ppm, udp_dup_ppm, udp_reorder_ppm, short_ppm;
  uint64_t udp_reorder_max_ns;
  uint64_t udp_lost, udp_duplicated, udp_reordered, short_reads, short_writes;
  uint64_t last_progress_ns, progress_calls;
  /* The launcher's bell (a futex word): bumped at the world's end and at a
   * restart request, so the launcher sleeps until something concerns it. */
  uint32_t bell;
  /* A restart: the node holding the world asks the launcher for a fresh
   * process of node restart_request - 1 and waits for restart_done. */
  uint32_t restart_request;  /* 1 + node index, 0 when none */
  uint32_t restart_done;     /* futex word: 1 once the new process is parked */
  /* The world's end: nodes asked for their last events (and their trace
   * parts) count themselves done here (a futex word the launcher waits on). */
  uint32_t dumps_done;
  /* DETSIM_CHECK counts of every node (the launcher reports them). */
  uint32_t n_checks;
  struct detsim_world_check checks[DETSIM_WORLD_CHECKS_MAX];
  /* Coverage points of every node, reached or not (the launcher reports
   * them); points_dropped counts those past DETSIM_WORLD_POINTS_MAX. */
  uint32_t n_points, points_dropped;
  struct detsim_world_point points[DETSIM_WORLD_POINTS_MAX];
  /* The arena: a bump pointer and one free list per power-of-two class. */
  uint64_t arena_used;
  void *arena_free[DETSIM_WORLD_ARENA_CLASSES];
  struct detsim_world_node nodes[DETSIM_WORLD_NODES_MAX];
  /* The futex words the nodes' simulated threads wait on, by node and
   * thread slot: shared, so that a node handing the world over wakes the
   * thread that takes it (DETSIM_BATON_*). */
  uint32_t batons[DETSIM_WORLD_NODES_MAX][DETSIM_WORLD_THREADS_MAX];
  /* The last virtual pid or tid handed out (0: none yet; proc_ids.c). */
  int32_t last_pid;
  /* A real signal from outside the simulation (runtime/signal/outside_signal.c):
   * its number, once (0: none), and the node that got it (-1: the
   * launcher).  The launcher ends the world for it. */
  uint32_t outside_signal;
  int32_t outside_node;
  /* Each host's epoll instances (its processes share them, made before or
   * after a fork) and their registrations (net_epoll.c); a host's are
   * forgotten when it comes back after a crash. */
  void *epoll_instances[DETSIM_WORLD_NODES_MAX];
  uint32_t epoll_registrations[DETSIM_WORLD_NODES_MAX];
  /* Each host's named semaphores (sem_open: runtime/sync/sync_sem_named.c),
   * a list in the arena that its processes share. */
  void *named_sems[DETSIM_WORLD_NODES_MAX];
  /* exec (runtime/proc/proc_exec.c): escapes to a binary that is not a
   * simulation build, refused (the run ends inconclusive) or run outside
   * (exec_native=1: the run is not replayable), the first one's binary,
   * and the slots whose process now runs outside (a black box that a
   * waitpid asks the kernel about). */
  uint32_t exec_escapes, exec_outside_runs;
  char exec_escape_name[128];
  uint8_t exec_outside[DETSIM_WORLD_NODES_MAX];
  /* Whether a storage fault beyond the envelope was injected
   * (runtime/disk/): a failing run is then excused. */
  uint32_t disk_beyond;
  uint32_t disk_pad;
  /* The command that replays the whole world (the launcher's first line,
   * its scenario path absolute): a node's own first line names it, as a
   * node cannot be replayed alone.  Empty: the node prints none. */
  char replay[DETSIM_WORLD_REPLAY_BYTES];
  /* Fuzz mode in a run's own world (runtime/fuzz/fuzz_cov.c): the
   * coverage counters of its processes that ended or exec'd (a saturating
   * sum, in the arena), as many as the first process registered, then the
   * scheduling features; the process that writes fuzz_out adds them to
   * its own.  NULL: not in fuzz mode, or a scenario's world (the launcher
   * merges its nodes' parts). */
  uint8_t *fuzz_merged;
  uint64_t fuzz_merged_counters;
  struct detsim_world_pct pct;
  /* Schedule plans in a run's own world (runtime/trace/plan.c): the
   * decisions every process recorded (plan_out=, in the arena), and for a
   * replayed plan a byte per process it names, set once the run made it. */
  void *plan_record;
  uint64_t plan_record_len;
  uint32_t plan_record_overflow;
  uint32_t plan_pad;
  uint8_t *plan_pids_seen;
  /* A run's own world's trace (runtime/world/world_trace.c): the run's
   * trace file as an absolute path (empty: trace=none), which every
   * process's part is named after (<trace>.<first process's kernel
   * pid>.pid<pid>.<incarnation>), and whether the first process is to merge
   * the parts into it (a process that ended the run badly asks). */
  char trace_file[DETSIM_WORLD_TRACE_PATH_BYTES];
  uint32_t trace_merge;
  uint32_t trace_pad;
  /* Choice mode (DETSIM_OPTIONS=choices=FILE given to the launcher, or a
   * run's own world since its first fork or exec;
   * fuzz_abi.h): the launcher loads the file here, and the world's
   * decisions (every node's scheduling choices, the fault draws) take its
   * bytes in the order of the one history, whichever node makes them;
   * choices_pos is the next byte's index.  The bytes come last: only the
   * pages a file fills are ever touched. */
  uint32_t choices_on;
  uint32_t choices_pad;
  uint64_t choices_len, choices_pos;
  uint8_t choices[DETSIM_CHOICES_BYTES_MAX];
};

/* The arena starts here, after the header, page aligned. */
#define DETSIM_WORLD_ARENA_OFFSET ((sizeof(struct detsim_world_shared) + 4095) & ~4095ull)

/* Node i's IPv4 address is 127.0.1.(i + 1). */
#define DETSIM_WORLD_NET_B2 1

#endif
