/* The simulated disk of a node (docs/disk.md).
 *
 * A node's files are real files under its data directory; the runtime adds
 * what a disk and a machine crash do to them: every modifying call on a file
 * there is a yield point that takes virtual time from a per-seed disk model,
 * records what is not durable yet in an undo journal (level 3, in a world),
 * and may meet a storage fault.  After a crash as a dead host, the next
 * incarnation rolls the journal back as the seed draws before its main runs.
 */
#ifndef DETSIM_DISK_H
#define DETSIM_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Reads the data directory (the data_dir option, or the node directory a
 * world's launcher gives), checks the options, and after a power loss rolls
 * the node's disk back.  Before the program's code runs. */
void detsim__disk_init(uint64_t seed);
/* Whether any data directory is configured at all (a cheap early out). */
bool detsim__disk_on(void);
/* Whether `path` (from dirfd) lies under the data directory. */
bool detsim__disk_path_tracked(int dirfd, const char *path);
/* Whether fd is a file under the data directory. */
bool detsim__disk_fd_tracked(int fd);

/* The interceptors' halves (intercept_net.c, machine_files.c call them for
 * descriptors and paths that are tracked). */
int detsim__disk_open(int dirfd, const char *path, int flags, mode_t mode);
ssize_t detsim__disk_pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off, uintptr_t pc);
/* After a read of a tracked descriptor: its time, and a corrupt fault's
 * bit flip or latent sector error (EIO); the read's result. */
ssize_t detsim__disk_read_done(int fd, void *buf, ssize_t got, uintptr_t pc);
int detsim__disk_close(int fd);
int detsim__disk_ftruncate(int fd, off_t len, uintptr_t pc);
int detsim__disk_fallocate(int fd, int mode, off_t off, off_t len, uintptr_t pc);
int detsim__disk_fsync(int fd, uintptr_t pc);
int detsim__disk_syncall(uintptr_t pc);
int detsim__disk_mkdirat(int dirfd, const char *path, mode_t mode, uintptr_t pc);
int detsim__disk_symlinkat(const char *target, int dirfd, const char *path, uintptr_t pc);
int detsim__disk_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags,
                           uintptr_t pc);
int detsim__disk_linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags, uintptr_t pc);
/* The runtime saw descriptor fd opened (on the disk or not) or closed. */
void disk_fd_mark(int fd, bool on);
void disk_fd_forget(int fd);
int detsim__disk_unlinkat(int dirfd, const char *path, int flags);
/* A blocking lock request (F_SETLKW, F_OFD_SETLKW, flock without LOCK_NB)
 * on a real file: the non-blocking form retried with simulated waits, so a
 * process that waits for another's lock lets the world run. */
int detsim__disk_lock_wait(int fd, int cmd, void *arg, bool is_flock);
/* Warns (once per process) of a write to a regular file outside every data
 * directory in a world of several nodes: it is real and survives anything. */
void detsim__disk_outside_write(int fd);

/* A call the disk model does not cover, on a file of the disk: ends the
 * run with a clear error naming it. */
_Noreturn void detsim__disk_unsupported(const char *what);

/* A run failing after a fault beyond the envelope (corrupt, misdirected)
 * was injected is excused: the class the run ends with. */
int detsim__disk_class(int cls);

#endif
