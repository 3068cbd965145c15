/* proc/: the one header of the runtime's proc part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_PROC_PART_H
#define DETSIM_PROC_PART_H

/* exec in a process of the simulation (docs/processes.md, "exec").
 *
 * An exec of a simulation build keeps the process in the run's world: the
 * same slot, pid, history and virtual clock.  The old image hands its slot
 * over through two variables of the new image's environment:
 * DETSIM_WORLD=FD,SLOT (the world's memory file, as a launcher passes it)
 * and DETSIM__EXEC (the process's ids, signal state and simulated
 * descriptors, proc_exec.c).  The new image's constructor attaches to the
 * slot and takes the world where the old one left it.
 *
 * An exec of any other binary (no libdetsim_rt in its DT_NEEDED) is an
 * escape: it fails with EPERM and an error naming the binary, and the run
 * ends `inconclusive` with reason=exec-escape; with exec_native=1 it runs
 * outside the simulation instead and the result line says replayable=no.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define DETSIM_EXEC_ENV "DETSIM__EXEC"

/* The exec family's common path.  `call` names the function for messages;
 * `file` is what the program passed (searched in PATH when `search` and it
 * has no '/'); `fd` >= 0 for fexecve.  Returns only on failure (-1, errno). */
int detsim__proc_exec(const char *call, const char *file, bool search, int fd, char *const argv[],
                      char *const envp[], uintptr_t pc);

/* An escape refused: the error naming `path`, the run's failure noted;
 * -1 with errno EPERM. */
int detsim__proc_exec_refuse(const char *call, const char *path);
/* The executable `file` resolves to (PATH search as execvp does when
 * `search` and it has no '/'): 0 with the path in out, or an errno. */
int detsim__proc_exec_resolve(const char *file, bool search, char *out, size_t size);
/* Whether the ELF at `path` (or open descriptor `fd` >= 0) is a simulation
 * build: it needs libdetsim_rt.  0 with *sim set, or an errno when it
 * cannot be read. */
int detsim__proc_elf_is_sim(const char *path, int fd, bool *sim);

/* The new image's side, from the constructor (init.c): whether this image
 * is an exec's (DETSIM__EXEC set); then attach to the slot (instead of
 * detsim__world_attach), take the ids, and, once the scheduler started,
 * adopt the descriptors and signal state. */
bool detsim__proc_exec_image(void);
void detsim__proc_exec_attach(void);
void detsim__proc_exec_ids(void);
void detsim__proc_exec_adopt(void);
/* Whether this is such an image: it holds the world from its start (its
 * dispatcher takes it once the slot is ready, world.c). */
bool detsim__proc_exec_image_holds_world(void);

/* A run's own world lives in a memory file (world_proc.c): its descriptor
 * (close-on-exec, at a high number), or -1. */
extern int detsim__proc_world_fd;
/* Whether the descriptor is still the world's (a program may close it). */
bool detsim__proc_world_fd_ok(void);
/* The new image of an exec takes the descriptor it was handed. */
void detsim__proc_adopt_world_fd(int fd);
/* A scenario's node keeps the descriptor its launcher gave it (moved high,
 * close-on-exec), for the exec of any of its processes. */
void detsim__proc_keep_world_fd(int fd);
/* world_proc.c: the first fork's (or exec's) making of a world of one host,
 * and the first process's warden. */
void detsim__proc_become_world(void);
void detsim__proc_start_warden(void);

/* Whether a process of the run tried an escape that was refused, and the
 * run's result line's words for it ("reason=exec-escape binary=..."). */
bool detsim__proc_exec_escaped(void);
const char *detsim__proc_exec_escape_extra(void);
/* "replayable=no" once a process of the run ran a binary outside
 * (exec_native=1), else "": every result line says it (report.c). */
const char *detsim__proc_exec_result_extra(void);

/* The network's side (net_fd.c): the simulated descriptors to hand over
 * and to close, and the new image's adoption of them. */
struct net_file;
typedef void (*net_exec_visit)(int fd, struct net_file *f, bool cloexec, void *arg);
void net_exec_each(net_exec_visit visit, void *arg);
/* `f` is descriptor fd again (keep) or a reference this image gives back
 * as close() would (a close-on-exec one, fd -1).  Files first seen count
 * as alive here. */
void net_exec_adopt(int fd, struct net_file *f);
void net_exec_drop(struct net_file *f);

/* signal.c: the state an exec keeps (mask, pending, ignored signals; a
 * handled one is reset to its default), and its restoring. */
void detsim__sig_exec_save(uint64_t *mask, uint64_t *pending_thread, uint64_t *pending_process, uint64_t *ignored);
void detsim__sig_exec_restore(uint64_t mask, uint64_t pending_thread, uint64_t pending_process, uint64_t ignored);
/* The three interval timers (deadline, interval, interval as asked each),
 * which execve keeps. */
#define DETSIM_EXEC_TIMER_WORDS 9
void detsim__sig_exec_timers_save(uint64_t out[DETSIM_EXEC_TIMER_WORDS]);
void detsim__sig_exec_timers_restore(const uint64_t in[DETSIM_EXEC_TIMER_WORDS]);

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

/* Processes of a world (docs/processes.md): fork, a process's end, wait,
 * pids, and the teardown that leaves nothing behind.
 *
 * A process is a slot of the world's node table (world_abi.h).  A run that
 * is not a node of a launcher's world maps the world's region at its start
 * (detsim__proc_map_own_region) so that its network objects are shared
 * with any child it forks; its first fork makes it a world of one host
 * (detsim__world_solo), whose first process writes the run's result line.
 */

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

/* At the start of a run outside a launcher's world: maps the shared region
 * at DETSIM_WORLD_ADDR (nothing else of a world starts).  Quietly nothing
 * when the address is taken: a fork then fails with a message. */
void detsim__proc_map_own_region(void);

/* Whether this process can fork a simulated child (the world's region:
 * its own, or a scenario's node's; not pct or a schedule plan). */
bool detsim__proc_can_fork(void);
/* fork(2) in the simulation: the child's pid, 0 in the child, -1 with
 * errno (EAGAIN at world_processes_max). */
pid_t detsim__proc_fork(uintptr_t pc);
/* The runtime's first pthread_atfork child handler: true when this is the
 * child of a simulated fork, now set up and holding the world. */
bool detsim__proc_atfork_child(void);
/* Inside the real fork of a simulated one (its atfork handlers, in the
 * child until detsim__proc_atfork_child): a thread created there is a
 * sanitizer's own (TSan starts its background thread in its child
 * handler), never the program's. */
bool detsim__proc_in_real_fork(void);

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

/* A host of a scenario goes down (a crash, or its first process ended):
 * every process forked on it ends with it, never scheduled again (DOWN;
 * its zombies are gone too).  Their sockets are the host's, which the
 * caller closes or silences.  _release: the launcher may kill them now
 * (kill_me), once none of them holds the world. */
void detsim__proc_host_down(unsigned host);
void detsim__proc_host_release(unsigned host);

/* The first process's watchdog: the pid of the process that holds the
 * world but died outside the simulation (a SIGKILL from outside), else -1. */
int detsim__proc_holder_died(void);
/* A forked process whose run's first process (in a scenario's world: its
 * launcher) is gone, killed from outside: it must end too (its watchdog
 * asks). */
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

/* Stops and continues (proc_stop.c, docs/processes.md): job control as
 * Linux's.  A thread taking a stop signal at its default action stops its
 * process: the world chooses none of its threads until a SIGCONT (or a
 * SIGKILL) clears the slot's `stopped`; the parent's wait reports it
 * (WUNTRACED, WSTOPPED) and gets SIGCHLD with CLD_STOPPED unless its
 * SIGCHLD has SA_NOCLDSTOP.  Returns once the process is continued (or
 * ends the run as a deadlock when it is alone: no process could). */
struct detsim_thread;
void detsim__proc_stop(struct detsim_thread *self, int sig);
/* A SIGCONT (sig) or SIGKILL sent to slot j, by the baton holder: a
 * stopped process runs again; SIGCONT's is reported to its parent
 * (WCONTINUED, CLD_CONTINUED).  Nothing when it is not stopped. */
void detsim__proc_continue(unsigned j, int sig);
bool detsim__proc_is_stopped(unsigned j);
/* A deadlock of the world: names each stopped process (a message each),
 * and the result line's words for them ("stopped=PID,PID"; "" if none). */
void detsim__proc_report_stopped(char *extra, size_t size);

/* The network's side of a fork (net_fd.c): every simulated descriptor gets
 * one more reference (the child's table), or gives it back when the fork
 * failed; the child draws its own links. */
void net_fork_share(int delta);
void net_fork_child(void);
/* The run's first fork makes a world (world_proc.c): the host's slot takes
 * over this process's ephemeral port and autobind draws, which its
 * processes share from then on (net_sock.c). */
void net_host_ports_take(void);
/* signal.c: the child's pending signals and interval timers are its own. */
void detsim__sig_fork_child(void);

#endif /* DETSIM_PROC_PART_H */
