/* simworld: runs one seed of a scenario, a world of several nodes.
 *
 *   DETSIM_SEED=42 simworld kv.scenario
 *
 * It behaves like one simulation build to whoever runs it (simrun,
 * simreplay, a shell): the contract's first and last lines on stderr, one
 * exit status per class.  Each node is a process of its own; they share one
 * scheduler, clock and network through the world's memory
 * (runtime/world_abi.h).
 */
#ifndef SIMWORLD_H
#define SIMWORLD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../runtime/world_abi.h"
#include "st_scenario.h"

struct sw_run {
  const struct st_scenario *sc;
  uint64_t seed;
  const char *options;     /* DETSIM_OPTIONS for every node */
  char *node_options;      /* as given to the nodes (NULL: options) */
  char *log_dir;
  int fd;                  /* the world's memory */
  struct detsim_world_shared *world;
  pid_t pids[DETSIM_WORLD_NODES_MAX];
  /* Each node's real process group (its first process's pid while that
   * is not reaped): every process forked on the node is in it. */
  pid_t groups[DETSIM_WORLD_NODES_MAX];
  /* The virtual pid of the process in each slot that the launcher killed
   * (a forked one's), so it is killed once. */
  int32_t killed_vpid[DETSIM_WORLD_NODES_MAX];
  /* ... and of each one the launcher reaped (an orphan of a node). */
  int32_t gone_vpid[DETSIM_WORLD_NODES_MAX];
  int outside_death;       /* a node that died outside the simulation (or
                              the host of a forked process that did), or -1 */
  int outside_status;
  bool fuzz;               /* fuzz_out= given: every node writes its coverage */
  int32_t outside_vpid;    /* that forked process's virtual pid, else 0 */
  bool dumped[DETSIM_WORLD_NODES_MAX]; /* this incarnation wrote its part */
  /* Each node's own directory (its working directory, fresh per run) and
   * its data directory and undo journal's (runtime/disk/). */
  char *node_dir[DETSIM_WORLD_NODES_MAX];
  char *data_dir[DETSIM_WORLD_NODES_MAX];
  char *journal_dir[DETSIM_WORLD_NODES_MAX];
};

/* The host (a node of the scenario) of process slot `slot` of the world:
 * itself, or the node it was forked on; -1 for -1. */
static inline int32_t sw_host_of(const struct detsim_world_shared *w, int32_t slot) {
  if (slot < 0 || slot >= DETSIM_WORLD_NODES_MAX) return -1;
  return w->nodes[slot].host1 ? (int32_t)w->nodes[slot].host1 - 1 : slot;
}

struct detsim_world_shared *sw_world_create(const struct st_scenario *sc, uint64_t seed, int *fd_out);
/* Makes every node's directories under the log directory: node-NAME (its
 * working directory and simulated disk) and .disk-NAME (its journal). */
void sw_disks_create(struct sw_run *r);
/* Removes them (a passing run); a failing one keeps them with its logs. */
void sw_disks_remove(struct sw_run *r);
void sw_start_all(struct sw_run *r);
/* Waits for the world's end: 0, -1 when a node died outside it, or
 * SW_OUTSIDE_SIGNAL when a real signal from outside the simulation came
 * (to the launcher, or to a node: world->outside_signal, outside_node)
 * and no node ended the world for it within SW_OUTSIDE_GRACE_MS. */
#define SW_OUTSIDE_SIGNAL (-2)
#define SW_OUTSIDE_GRACE_MS 1000
int sw_supervise(struct sw_run *r);
/* The signal the launcher itself got from outside (its handler's), or 0. */
extern volatile int sw_signal_received;
void sw_kill_all(struct sw_run *r);
/* Asks every live node but the one that ended the world to print its last
 * events into its stderr log (a failed world's other half of the story) and
 * to write its trace part when one is wanted; waits until they have. */
void sw_dump_all(struct sw_run *r);
void sw_print_node_tail(const struct sw_run *r, unsigned i, unsigned lines);
/* A deadlocked world: every node's blocked threads, as each listed them in
 * its log. */
void sw_print_blocked(const struct sw_run *r);
/* The nodes' runtime warnings (an unsimulated call, say), each once, on
 * simworld's stderr: where a replay looks for the cause of a divergence. */
void sw_forward_warnings(const struct sw_run *r);
/* Merges the nodes' trace parts <base>.<node>.<incarnation> into <base>
 * (and removes them); returns base (malloc'd), or NULL when no part was
 * written. */
char *sw_trace_merge(const struct sw_run *r, const char *base, const char *replay);
/* Removes the parts no merge took (a world that passed, say). */
void sw_trace_parts_remove(const struct sw_run *r, const char *base);
/* Fuzz mode (fuzz.c): reads the choices file (a usage error naming the
 * problem when it cannot be read, is not a regular file or is over the
 * limit) and loads it into the world's header; merges the nodes' coverage
 * parts <out>.<node>.<incarnation> into the world's coverage file `out`
 * (and removes them). */
struct sw_choices {
  size_t len;
  uint8_t bytes[];
};
struct sw_choices *sw_choices_read(const char *path);
void sw_choices_load(const struct sw_choices *c, struct detsim_world_shared *w);
void sw_fuzz_merge(const struct sw_run *r, const char *out);

#endif
