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
#ifndef DETSIM_PROC_EXEC_H
#define DETSIM_PROC_EXEC_H

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

#endif
