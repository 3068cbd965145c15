/* disk/: the one header of the runtime's disk part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_DISK_PART_H
#define DETSIM_DISK_PART_H

/* The simulated disk of a node (docs/disk.md).
 *
 * A node's files are real files under its data directory; the runtime adds
 * what a disk and a machine crash do to them: every modifying call on a file
 * there is a yield point that takes virtual time from a per-seed disk model,
 * records what is not durable yet in an undo journal (level 3, in a world),
 * and may meet a storage fault.  After a crash as a dead host, the next
 * incarnation rolls the journal back as the seed draws before its main runs.
 */

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
/* copy_file_range into a file of the disk: the kernel's checks, then the
 * bytes read and written through the disk (disk_copy.c). */
ssize_t detsim__disk_copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t n, unsigned flags,
                                     uintptr_t pc);
/* A blocking lock request (F_SETLKW, F_OFD_SETLKW, flock without LOCK_NB)
 * on a real file: the non-blocking form retried with simulated waits, so a
 * process that waits for another's lock lets the world run. */
int detsim__disk_lock_wait(int fd, int cmd, void *arg, bool is_flock);
/* Warns (once per process) of a write to a regular file outside every data
 * directory in a world of several nodes: it is real and survives anything. */
void detsim__disk_outside_write(int fd);

/* Shared mappings of files of the disk (disk_map.c): mmap, munmap,
 * mremap, mprotect and msync as the kernel does them, with the mappings
 * tracked, so that a writable one's stores are in the crash model: the
 * journal snapshots its range when it becomes writable and again whenever
 * the range is synced (msync MS_SYNC, fsync, sync).  Each takes the
 * arguments of its call; pc is the program's call site. */
void *detsim__disk_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off, uintptr_t pc);
int detsim__disk_munmap(void *addr, size_t len);
void *detsim__disk_mremap(void *old, size_t old_len, size_t new_len, int flags, void *new_addr);
int detsim__disk_mprotect(void *addr, size_t len, int prot);
int detsim__disk_msync(void *addr, size_t len, int flags, uintptr_t pc);
/* This process holds a tracked mapping: munmap, mremap, mprotect and msync
 * must look (a cheap early out for every other call). */
bool detsim__disk_maps_held(void);
/* The child of a simulated fork: it holds its parent's mappings too. */
void detsim__disk_fork_child(void);

/* A call the disk model does not cover, on a file of the disk: ends the
 * run with a clear error naming it. */
_Noreturn void detsim__disk_unsupported(const char *what);

/* A run failing after a fault beyond the envelope (corrupt, misdirected)
 * was injected is excused: the class the run ends with. */
int detsim__disk_class(int cls);

/* Shared by the files of runtime/disk/ only. */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>


enum disk_model { DISK_MODEL_EXT4, DISK_MODEL_POSIX };

struct disk_config {
  char data[PATH_MAX];      /* the data directory, resolved; "" for none */
  size_t data_len;
  char journal_dir[PATH_MAX]; /* the node's journal and undo links; "" when
                                 nothing is journaled (no crash can lose) */
  bool journal;
  enum disk_model model;
  uint64_t seed;
};
extern struct disk_config detsim__disk;

/* ---- the undo journal (disk_journal.c) ----
 * One record per modifying call, appended before the call runs, in a file
 * of the node's journal directory; its processes run one at a time, and a
 * crash happens while the node is parked, so no record is ever half
 * written.  Records say what to undo (pre-images, old sizes, old names)
 * and what became durable (syncs). */
enum disk_rec {
  DISK_REC_WRITE = 1,   /* ino, path; off, len; old_size; pre-image of [off, min(off+len, old_size)) */
  DISK_REC_SIZE,        /* ino, path; off = the new size; old_size; pre-image of [new, old) when shrinking */
  DISK_REC_FSYNC,       /* ino: its data and size are durable */
  DISK_REC_FSYNC_FAIL,  /* ino: its unsynced data is gone for crash purposes */
  DISK_REC_DIRSYNC,     /* path: the names of that directory are durable */
  DISK_REC_SYNCALL,     /* everything is durable */
  DISK_REC_CREATE,      /* path (len 1: a directory) */
  DISK_REC_UNLINK,      /* path; path2 = its undo link ("" for a directory) */
  DISK_REC_RENAME,      /* path -> path2; pre = the undo link of a replaced file */
  DISK_REC_LINK,        /* path (old) -> path2 (new name) */
  DISK_REC_MAP,         /* ino, path; off, len: a writable shared mapping's file range, whose
                           stores the journal cannot see; old_size; pre-image of
                           [off, min(off+len, old_size)) as it was when the mapping became
                           writable (or the range was last synced) */
  DISK_REC_MSYNC,       /* ino, path; off, len: msync(MS_SYNC) made that range's data and the
                           file's size durable */
  DISK_REC_EXCHANGE,    /* path <-> path2 (renameat2 RENAME_EXCHANGE): undone by exchanging back */
  DISK_REC_ENTER,       /* path2: a name that came into the data directory from outside it (a
                           rename, or an exchange); pre = the undo link or copy of what the name
                           held before ("" none); undone by removing it and putting that back */
  DISK_REC_BORN,        /* ino: a file made now (created, O_TMPFILE, entered); the records of that
                           inode number before it were another file's, whose inode died with it
                           (an unnamed file closed) and was reused */
  DISK_REC_SHIFT,       /* ino, path; off; len = the new size; old_size; pre-image of [off,
                           old_size): fallocate COLLAPSE_RANGE or INSERT_RANGE moved every byte
                           past off; undone whole, with every record of the file after it */
};

struct disk_rec_head {
  uint32_t magic, type;
  uint64_t ino;
  int64_t off;
  uint64_t len;
  int64_t old_size;
  uint32_t path_len, path2_len;
  uint64_t pre_len;
};
#define DISK_REC_MAGIC 0x6b736964u /* "disk" */

void disk_journal_write(uint64_t ino, const char *path, int64_t off, uint64_t len, int64_t old_size, int readfd);
/* As disk_journal_write, with the pre-image given (read before a call that
 * could fail, recorded only once it succeeded). */
void disk_journal_write_pre(uint64_t ino, const char *path, int64_t off, uint64_t len, int64_t old_size,
                            const char *pre);
void disk_journal_shift(uint64_t ino, const char *path, int64_t off, int64_t new_size, int64_t old_size,
                        const char *pre);
void disk_journal_size(uint64_t ino, const char *path, int64_t new_size, int64_t old_size, int readfd);
void disk_journal_mark(enum disk_rec type, uint64_t ino, const char *path);
void disk_journal_map(uint64_t ino, const char *path, int64_t off, uint64_t len, int64_t size, int readfd);
void disk_journal_msync(uint64_t ino, const char *path, int64_t off, uint64_t len);
void disk_journal_name(enum disk_rec type, const char *path, const char *path2, const char *extra, uint64_t len);
/* Hard-links `path` into the journal directory (so an unlinked or replaced
 * file can come back); its name there into out, "" when it is no file. */
void disk_journal_keep(const char *path, char *out, size_t size);
/* A copy of the regular file `path` in the journal directory (a file that
 * leaves the data directory keeps its inode outside: its way back is a
 * copy); its name there into out, "" when it is no regular file. */
void disk_journal_keep_copy(const char *path, char *out, size_t size);
/* Everything is durable: the journal and the undo links go. */
void disk_journal_reset(void);
/* After a power loss: rolls the disk back as the seed draws (disk_rollback.c),
 * counting what was lost. */
void disk_rollback(uint64_t *lost_writes, uint64_t *lost_names);

/* ---- shared mappings (disk_map.c) ---- */
/* At start-up (every image): the mappings this process's slot held before
 * (an image an exec replaced, an incarnation a crash ended) are gone. */
void disk_map_init(void);
/* Some process of the node holds a writable tracked mapping (cheap). */
bool disk_map_any(void);
/* After a sync of a file (fsync, failed or not): the writable mappings of
 * it that any process of the node holds are snapshotted again from readfd,
 * as what is on the disk now; their later stores are unsynced. */
void disk_map_rearm_file(uint64_t dev, uint64_t ino, int readfd);
/* After sync()/syncfs() emptied the journal: every writable mapping. */
void disk_map_rearm_all(void);
/* After a power loss: no process of the node lives, nor do its mappings. */
void disk_map_forget_all(void);

/* An fsync or msync(MS_SYNC) of a file meets an eio fault (counted and
 * injected; a file whose failure was reported takes none until its next
 * write, as Linux reports a writeback error once). */
bool disk_sync_fails(uint64_t ino, uintptr_t pc);

/* ---- paths (disk_config.c) ---- */
/* `path` from dirfd as an absolute path with symlinks of its directory
 * resolved; false when it cannot be made. */
bool disk_resolve(int dirfd, const char *path, char *out, size_t size);
/* `path` (relative to dirfd, or AT_FDCWD) as an absolute path with no ".",
 * ".." or "//" into out, symlinks left as they are (the simulated machine's
 * /proc/self files are matched by name, the disk resolves further); false
 * when too long or dirfd names no directory. */
bool detsim__path_lexical(int dirfd, const char *path, char *out, size_t len);
bool disk_under(const char *abs);
/* A file moved into or out of the data directory: every cached
 * descriptor answer may be stale. */
void disk_fd_forget_all(void);
/* The path of a descriptor's file (readlink of /proc/self/fd). */
bool disk_fd_path(int fd, char *out, size_t size);
/* Ends the run: a limit of the disk was reached, or a call the model does
 * not cover was made on a file under the data directory. */
_Noreturn void disk_fail(const char *what);

/* ---- the disk's model and faults (disk_model.c) ---- */
enum disk_op { DISK_OP_WRITE, DISK_OP_READ, DISK_OP_SYNC, DISK_OP_META };
/* A yield point that takes the virtual time the operation costs. */
void disk_take_time(enum disk_op op, uint64_t bytes, uintptr_t pc);
/* Storage faults of this host's open windows: whether this call meets one
 * (the kind's index in fault_kinds.inc), drawn from the node's stream. */
bool disk_fault_hits(unsigned kind);
uint64_t disk_fault_draw(uint64_t n);
/* A full disk as a fault (enospc, edquot windows): ENOSPC or EDQUOT when
 * this call meets one (injected and counted), else 0. */
int disk_full_fault(uintptr_t pc);
/* The bytes the disk can still take (disk_capacity= less what its files
 * hold, disk_capacity.c); UINT64_MAX when its capacity is unlimited. */
uint64_t disk_room(void);
/* An injected storage fault: its event and its count. */
void disk_fault_injected(unsigned kind, uintptr_t pc);
/* The file's times after a modifying call: the virtual clock's. */
void disk_touch_fd(int fd);
void disk_touch_path(const char *abs);

#endif /* DETSIM_DISK_PART_H */
