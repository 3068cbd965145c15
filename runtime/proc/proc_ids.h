/* Virtual process and thread ids: the world's numbers, not the kernel's.
 *
 * A program sees only these (getpid, getppid, gettid, getpgrp, getsid,
 * si_pid, SO_PEERCRED, kill's targets), so a program that prints or sends
 * its pid replays exactly.  The runtime keeps the real ids for what it
 * asks of the kernel (REAL(getpid), REAL(gettid)).
 *
 * The scheme (docs/worlds.md, "Process and thread ids"), as Linux numbers a
 * fresh machine's processes: one counter per world hands out pids and tids
 * alike, in the order the simulation creates them, starting at
 * DETSIM_PID_FIRST.  A run of one program is pid 1000 and its threads
 * 1001, 1002, ... in creation order; the nodes of a world are 1000, 1001,
 * ... in scenario order (they attach one by one), and every thread and
 * every restarted process takes the next number when it is made.  A
 * process's main thread has tid == pid.  The parent of a world's first
 * processes is DETSIM_PID_PARENT, outside the world (whoever started the
 * run), and pid 1 is an init outside it too: kill() of either is EPERM,
 * of any other pid the world does not hold ESRCH.  Each first process is
 * the leader of its own process group and session (a node is a host).
 *
 * A forked process takes the next number too (its parent allocates it
 * before the real fork) and starts in its parent's group and session
 * (setsid and setpgid move it, as Linux's, docs/processes.md); its
 * getppid is its parent's pid, or 1 (init, DETSIM_PID_INIT) once the
 * parent has ended (docs/processes.md).
 *
 * Ids are allocated only by the baton holder (a thread's creation, a
 * process's attach while the world waits for it), so the numbers are the
 * same in every run of the seed.
 */
#ifndef DETSIM_PROC_IDS_H
#define DETSIM_PROC_IDS_H

#include <stdbool.h>
#include <sys/types.h>

#define DETSIM_PID_FIRST 1000
#define DETSIM_PID_PARENT 999
#define DETSIM_PID_INIT 1

/* Gives this process its ids (a world's node: the next of the world's
 * counter; alone: DETSIM_PID_FIRST).  Before it, and in a native child
 * after detsim__proc_ids_forget, the getters below answer the kernel's. */
void detsim__proc_ids_init(void);
void detsim__proc_ids_forget(void);
bool detsim__proc_ids_ready(void);

/* The calling process's virtual pid, parent pid, process group and
 * session. */
pid_t detsim__proc_pid(void);
pid_t detsim__proc_ppid(void);
pid_t detsim__proc_pgid(void);
pid_t detsim__proc_sid(void);
/* The virtual pid of the process the kernel knows as kernel_pid: a
 * process of the world (a node, a forked child), else kernel_pid itself
 * (a process outside the world, the machine's).  For answers the kernel
 * gives in its own ids, such as F_GETLK's lock holder. */
pid_t detsim__proc_vpid_of_kernel(pid_t kernel_pid);
/* A process made by the simulation (fork) takes its ids here. */
void detsim__proc_set(pid_t pid, pid_t ppid, pid_t pgid, pid_t sid);

/* The next id of the world, for a new thread or process.  Ids are never
 * reused: reaching DETSIM_PID_MAX ends the run as inconclusive with
 * limit=pid_max. */
pid_t detsim__proc_alloc(void);

/* The world's slot (a node's process, or a forked one) whose process has
 * virtual pid `pid` (and is in the world now), or -1.  _any: a zombie
 * (ended, not waited for) too, as the kernel still finds one by its pid. */
int detsim__proc_node_of(pid_t pid);
int detsim__proc_node_of_any(pid_t pid);
/* Whether some process of the world (a zombie included) is in process
 * group `pgid` (and, unless `sid` is 0, in session `sid`). */
bool detsim__proc_group_exists(pid_t pgid, pid_t sid);
/* Slot `node`'s virtual pid (0 when it has none yet), its process group
 * and its session: a node's first process leads its own, a forked process
 * starts in its parent's (setsid, setpgid: intercept_proc_group.c). */
pid_t detsim__proc_pid_of_node(unsigned node);
pid_t detsim__proc_pgid_of_node(unsigned node);
pid_t detsim__proc_sid_of_node(unsigned node);
/* Moves slot `node` to group `pgid` of session `sid` (the baton holder:
 * the process itself, or its parent's setpgid). */
void detsim__proc_set_group(unsigned node, pid_t pgid, pid_t sid);
/* The run's first fork makes a world of its own (world_proc.c): the
 * counter moves into the world's header, and slot 0 takes this pid. */
void detsim__proc_ids_enter_world(void);

#endif
