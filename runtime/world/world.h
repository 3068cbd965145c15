/* world/: the one header of the runtime's world part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_WORLD_PART_H
#define DETSIM_WORLD_PART_H

/* This process as a node of a world of several (world_abi.h).
 *
 * A program run alone is a world of one node, and none of this is active:
 * detsim__in_world is false and the scheduler never leaves the process.
 * Under the launcher (DETSIM_WORLD set), the scheduler's choices include
 * the other nodes (sched.c), and this module moves the world's baton and
 * history between processes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "world_abi.h"

extern bool detsim__in_world;
extern unsigned detsim__node_index;
extern struct detsim_world_shared *detsim__ws;
/* The host this process runs on: its address, name, clocks and links
 * (the node's own index, or its forking ancestor's host: world_proc.c).
 * detsim__node_index is the process's slot (batons, posts, choices). */
extern unsigned detsim__host_index;
/* A world that a run made for itself at its first fork (world_proc.c):
 * one host, the run's own processes; no launcher. */
extern bool detsim__world_solo;
/* Whether the world has hosts of a scenario (node addresses, names, host
 * faults): a launcher's world, not a run's own. */
static inline bool detsim__world_hosts(void) { return detsim__in_world && !detsim__world_solo; }

/* Maps the world named by DETSIM_WORLD ("FD,NODE"); a usage error when it
 * is malformed or not a world. */
void detsim__world_attach(const char *spec);
/* Choice mode in a launcher's world: this process takes the world's
 * choices (the shared header's bytes) when the launcher loaded a file. */
void detsim__world_choices_attach(void);
/* The main thread of a new node: registers as ready, starts the node's
 * dispatcher, and waits until the world first hands this node the baton. */
void detsim__world_park_main(void);
/* Starts this process's dispatcher thread (and its dump handler). */
void detsim__world_start_dispatcher(void);

/* Other nodes that may have something to run, in index order: their count. */
unsigned detsim__world_candidates(unsigned *out);
/* The earliest time an idle node has asked to be woken at. */
uint64_t detsim__world_next_wake(void);
/* Virtual time reached `now`: idle nodes whose time came may run again. */
void detsim__world_wake_due(uint64_t now);
/* Hands the world's baton to node `node`: publishes the history and wakes
 * the thread there guessed to run first (or its dispatcher).  `idle` says
 * this node has nothing to run (until `wake_at`); `guess` is the slot of
 * its thread likely to run first when the world comes back for this node's
 * own reasons (DETSIM_WORLD_NO_SLOT: none).  The caller then waits for its
 * baton, or leaves. */
void detsim__world_hand_to(unsigned node, bool idle, uint64_t wake_at, int32_t guess);
/* The world came to this node: takes its history; false when the world
 * ended (the launcher ends this process). */
bool detsim__world_enter(void);
/* The futex word thread slot `slot` of this node waits on (DETSIM_BATON_*). */
uint32_t *detsim__world_baton(unsigned slot);
/* Whether the thread in slot `slot` waits for its baton (sched.c). */
bool detsim__sched_slot_waits(unsigned slot);
/* Whether this node's CLOCK_REALTIME stepped since the last look (a `step`
 * fault): if so, waits and timers set for an absolute realtime time follow
 * it (sched.c). */
void detsim__sched_clock_check(void);
/* The world came with a post from node `due_from` (-1: none) and thread
 * slot `slot` ran first: the next such hand-over wakes it. */
void detsim__world_learn_guess(int due_from, unsigned slot);
/* Something this node did concerns node `node`'s waits from virtual time
 * `at` on (an arrival, space freed, a close): that node looks again then,
 * idle or not.  Only for another node. */
void detsim__world_post(unsigned node, uint64_t at);
/* The host of process slot `node` (itself for a node of the scenario). */
unsigned detsim__world_host_of(unsigned node);
/* As detsim__world_post, for every process on host `host` (this one's own
 * waits look again too when it is this process's host). */
void detsim__world_post_host(unsigned host, uint64_t at);
/* Something concerns every other node now (a crash, a restart, a reset):
 * each looks again. */
void detsim__world_touch(void);
/* Whether other nodes posted to this node since it last looked (cleared);
 * *due_from: the node whose post is due by now, else -1. */
bool detsim__world_take_posts(int *due_from);

/* Faults (world_faults.c).  The earliest time a link from node `src` to
 * node `dst` carries what is sent at `t`: `t`, or the end of a partition or
 * clog that stalls it (always `t` outside a world). */
uint64_t detsim__world_link_open(unsigned src, unsigned dst, uint64_t t);
/* Whether a partition cuts that link at `t`: UDP datagrams sent then are
 * lost (a clog only delays them). */
bool detsim__world_link_drops(unsigned src, unsigned dst, uint64_t t);

/* What the `udp` fault does to one datagram from node src to node dst:
 * nothing (0), or DETSIM_UDP_* bits; a reordered one arrives *extra_ns
 * later than it would (world_io_faults.c). */
#define DETSIM_UDP_LOST 1u
#define DETSIM_UDP_DUPLICATED 2u
#define DETSIM_UDP_REORDERED 4u
unsigned detsim__world_udp_fate(unsigned src, unsigned dst, uint64_t *extra_ns);
/* How much of `n` bytes a TCP read (or a non-blocking write) between the
 * two nodes moves under the `short` fault: n, or 1..n-1. */
uint64_t detsim__world_short_io(unsigned src, unsigned dst, uint64_t n, bool write);
/* Set while this node hands the world over: no fault applies then. */
extern bool detsim__world_faults_held;
/* Applies every fault due by now (the schedule is drawn on first use). */
void detsim__world_faults_due(void);
/* The time of the next fault, DETSIM_NO_DEADLINE when none is left. */
uint64_t detsim__world_next_fault(void);
/* The world made progress now (detsim_progress, a client's exit). */
void detsim__world_progress(void);
/* When the liveness phase ends the run unless progress comes first:
 * the bound after the later of the faults' heal and the last progress;
 * DETSIM_NO_DEADLINE when there is no phase (no faults, liveness_s=0). */
uint64_t detsim__world_liveness_deadline(void);
/* The world passed its liveness deadline: ends the run as `liveness`. */
_Noreturn void detsim__world_liveness_failed(void);
/* Whether process slot `node` is paused by a fault now (its host is), and
 * until when its host is paused. */
bool detsim__world_paused(unsigned node);
uint64_t detsim__world_paused_until(unsigned node);

/* Lifecycle faults (world_lifecycle.c).  Node `node` crashes: it is never
 * scheduled again, the launcher kills its process, its sockets close (a
 * dead process) or go silent (a dead host).  When it is this node, the
 * world moves on to another node and the call does not return. */
void detsim__world_crash(unsigned node, bool silent);
/* A crashed node comes back as a fresh process at the same address: the
 * launcher starts it and this waits until it is parked in the world. */
void detsim__world_restart(unsigned node);
/* The world's SIGTERM to a node (a fault), and the node's side of it: it
 * takes a pending one when the world comes to it; a default action ends
 * the node as a stop, not as the world's failure (returns only when the
 * SIGTERM was not the world's). */
void detsim__world_term(unsigned node);
void detsim__world_take_signals(void);
/* kill() of another process of the world (a node's, a forked one), by its
 * virtual pid (or -its group): the signal waits in that process's inbox
 * until the world comes to it; a zombie accepts it and loses it.  0, or -1
 * when no other process of the world has that pid. */
int detsim__world_kill(pid_t pid, int sig);
/* kill() of process group `pgid`: every other process of it (this one's
 * own signal is the caller's); how many there were, zombies included. */
unsigned detsim__world_kill_group(pid_t pgid, int sig);
/* kill(-1): every other node's process; how many there were. */
unsigned detsim__world_kill_all(int sig);
void detsim__world_term_default(void);
/* That node exited before its grace period ended: its restart moves to its
 * down time after now. */
void detsim__world_stopped(unsigned node);

/* Writes the events this node recorded to its part of the world's trace,
 * <trace>.<node>.<incarnation> (world_trace.c); the launcher merges the
 * parts into <trace>.  Nothing for trace=none. */
void detsim__world_trace_part(void);
/* The first event this process recorded itself (a forked child's: its
 * fork's; parts leave out the parent's records its ring was copied with). */
extern uint64_t detsim__world_trace_from;
/* A run's own world (world_trace_merge.c): its first fork names the
 * processes' parts after the run's trace, made absolute; at the run's end
 * the first process merges every part (asking the other live processes to
 * write theirs first) into the run's trace, each thread named with its
 * pid (T1@1001): 0, or -1 with a message; or, when no trace is wanted,
 * removes them. */
void detsim__world_trace_solo_begin(void);
int detsim__world_trace_merge(void);
void detsim__world_trace_parts_remove(void);
/* Prints this node's blocked threads ("detsim: blocked: node N: thread T
 * waits in KIND at SITE"), for a world's deadlock report. */
void detsim__world_print_blocked(void);
/* The crashed node `node` no longer holds or hands anything: the launcher
 * may kill its process. */
void detsim__world_release_crashed(unsigned node);
/* Wakes the launcher: something in the header concerns it (an end, a
 * crashed node to kill, a restart to make). */
void detsim__world_ring_launcher(void);
/* Whether node `node` is down as a dead host (dials to it time out). */
bool detsim__world_node_silent(unsigned node);
/* A seed-tree label for one of this process's streams: `base`, made
 * per node (and per incarnation after a restart) in a world. */
void detsim__world_label(char *out, size_t n, const char *base);
/* The same for what is the host's, whichever of its processes asks (the
 * machine's size, its identity): per node of a scenario and per boot of
 * its host (a restart, not an exec); a run's own world is one host. */
void detsim__world_host_label(char *out, size_t n, const char *base);

/* This node's process ends with `status` (its exit handler): the node
 * leaves the world, which goes on without it or ends. */
void detsim__world_node_exit(int status);
/* The world ends with class `cls` because of this node. */
void detsim__world_end(int cls, int status, const char *extra);

/* Shared allocation for the network's objects (world_arena.c): the arena in
 * a world, the C heap otherwise. */
void *detsim__net_calloc(size_t n, size_t size);
void *detsim__net_malloc(size_t size);
void *detsim__net_realloc(void *p, size_t size);
void detsim__net_free(void *p);

/* This host listened (listen() succeeded): every node the scenario holds
 * until it does (`start NAME after NODE listens`) may run from now on. */
void detsim__world_listened(void);
/* A node still held so (its main never ran), or -1; *waits_for: the node
 * it waits for. */
int detsim__world_held_node(unsigned *waits_for);

/* Node i's IPv4 address in host byte order (127.0.1.(i+1)), and names. */
uint32_t detsim__world_node_ip(unsigned node);
/* The node named `name`, or -1. */
int detsim__world_node_by_name(const char *name);

#endif /* DETSIM_WORLD_PART_H */
