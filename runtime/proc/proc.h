/* Processes of a world (docs/processes.md): fork, a process's end, wait,
 * pids, and the teardown that leaves nothing behind.
 *
 * A process is a slot of the world's node table (world_abi.h).  A run that
 * is not a node of a launcher's world maps the world's region at its start
 * (detsim__proc_map_own_region) so that its network objects are shared
 * with any child it forks; its first fork makes it a world of one host
 * (detsim__world_solo), whose first process writes the run's result line.
 */
#ifndef DETSIM_PROC_H
#define DETSIM_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

/* At the start of a run outside a launcher's world: maps the shared region
 * at DETSIM_WORLD_ADDR (nothing else of a world starts).  Quietly nothing
 * when the address is taken: a fork then fails with a message. */
void detsim__proc_map_own_region(void);

/* Whether this process can fork a simulated child (a region of its own,
 * not a scenario's node, not pct or a schedule plan). */
bool detsim__proc_can_fork(void);
/* fork(2) in the simulation: the child's pid, 0 in the child, -1 with
 * errno (EAGAIN at world_processes_max). */
pid_t detsim__proc_fork(uintptr_t pc);
/* The runtime's first pthread_atfork child handler: true when this is the
 * child of a simulated fork, now set up and holding the world. */
bool detsim__proc_atfork_child(void);

/* Whether this process is a forked child (not the run's first process, nor
 * a scenario's node). */
bool detsim__proc_is_forked(void);
/* A forked child ends with `wait_status` (as waitpid reports it): its
 * descriptors close, its parent is told (SIGCHLD), the world goes on
 * elsewhere.  Returns; the caller then exits for real. */
void detsim__proc_end(int wait_status);
/* A status as waitpid reports a process ended by signal `sig`. */
int detsim__proc_signal_status(int sig);
/* This process's children become orphans (their parent is init, nobody
 * waits for them), as at its end. */
void detsim__proc_orphan_children(void);
/* The signal a forked child is ending by (a default action, a real crash);
 * 0 while none. */
extern int detsim__proc_ending_signal;

/* The first process's watchdog: the pid of the process that holds the
 * world but died outside the simulation (a SIGKILL from outside), else -1. */
int detsim__proc_holder_died(void);
/* A forked process whose run's first process is gone (killed from outside):
 * it must end too (its watchdog asks). */
bool detsim__proc_world_gone(void);
/* The first process of a run's own world: kills every other process of the
 * world and reaps them (whatever ended the run).  Nothing elsewhere. */
void detsim__proc_teardown(void);

/* A process of the world is waiting for the end another process found
 * (report.c writes the result line from the world's header). */
_Noreturn void detsim__finish_as_world_ended(void);

/* Whether this forked process's parent has ended (getppid is then init's,
 * proc_ids.c). */
bool detsim__proc_orphan(void);

/* The wait family (proc_wait.c): one simulated wait for a child. */
struct rusage;
pid_t detsim__proc_wait(pid_t pid, int *status, int options, siginfo_t *info, bool waitid_form, uintptr_t pc);

/* The network's side of a fork (net_fd.c): every simulated descriptor gets
 * one more reference (the child's table), or gives it back when the fork
 * failed; the child draws its own links. */
void net_fork_share(int delta);
void net_fork_child(void);
/* signal.c: the child's pending signals and interval timers are its own. */
void detsim__sig_fork_child(void);

#endif
