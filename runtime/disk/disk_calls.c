/* The modifying calls on files of the simulated disk (docs/disk.md): each is
 * a yield point that takes the disk's time, may meet a storage fault, and
 * (when a crash can lose) appends to the undo journal what it changes
 * before it changes it.  The file operations themselves are the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "time/time.h"
#include "disk/disk.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "world/world.h"

static int fail_with(int e) {
  errno = e;
  return -1;
}

/* A descriptor open for reading the same file (the writer's may be
 * write-only): the pre-images' source.  -1 when it cannot be had. */
static int reader_of(int fd) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  return (int)REAL(open)(link, O_RDONLY | O_CLOEXEC);
}

static void close_reader(int r) {
  if (r >= 0) REAL(close)(r);
}

static void parent_of(const char *abs, char *out, size_t size) {
  snprintf(out, size, "%s", abs);
  char *slash = strrchr(out, '/');
  if (slash == out) slash[1] = '\0';
  else if (slash) *slash = '\0';
}

static void touch_parent(const char *abs) {
  char dir[PATH_MAX];
  parent_of(abs, dir, sizeof dir);
  disk_touch_path(dir);
}

/* ---- data ---- */

/* Files whose fsync failed and that took no write since: as Linux reports
 * a writeback error once, their next fsync succeeds (without bringing the
 * lost data back).  Per process; a few at a time. */
#define EIO_REPORTED_MAX 64
static uint64_t eio_reported[EIO_REPORTED_MAX];

static bool eio_take(uint64_t ino) {
  for (unsigned i = 0; i < EIO_REPORTED_MAX; i++)
    if (eio_reported[i] == ino) {
      eio_reported[i] = 0;
      return true;
    }
  return false;
}

static void eio_note(uint64_t ino) {
  for (unsigned i = 0; i < EIO_REPORTED_MAX; i++)
    if (eio_reported[i] == 0 || eio_reported[i] == ino) {
      eio_reported[i] = ino;
      return;
    }
  eio_reported[ino % EIO_REPORTED_MAX] = ino;
}

static size_t iov_total(const struct iovec *iov, int n) {
  size_t t = 0;
  for (int i = 0; i < n; i++) t += iov[i].iov_len;
  return t;
}

ssize_t detsim__disk_pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off, uintptr_t pc) {
  if (iovcnt < 0 || iovcnt > IOV_MAX) return fail_with(EINVAL);
  size_t len = iov_total(iov, iovcnt);
  int fl = REAL(fcntl)(fd, F_GETFL);
  struct stat st;
  if (fl < 0 || fstat(fd, &st) != 0) return fail_with(EBADF);
  if (!S_ISREG(st.st_mode)) return off >= 0 ? REAL(pwritev)(fd, iov, iovcnt, off) : REAL(writev)(fd, iov, iovcnt);
  int64_t pos = off >= 0 ? (int64_t)off : (fl & O_APPEND) ? (int64_t)st.st_size : (int64_t)lseek(fd, 0, SEEK_CUR);
  if (len > 0) eio_take(st.st_ino); /* new dirty data: a later fsync may fail again */
  disk_take_time(DISK_OP_WRITE, len, pc);
  if (len > 0 && disk_fault_hits(DETSIM_FAULT_EIO)) {
    disk_fault_injected(DETSIM_FAULT_EIO, pc);
    return fail_with(EIO);
  }
  struct iovec cut[IOV_MAX];
  int cutn = iovcnt;
  memcpy(cut, iov, sizeof *iov * (size_t)iovcnt);
  if (len > 0 && pos + (int64_t)len > (int64_t)st.st_size) {
    /* The disk's capacity, as Linux fills a disk: a write takes what still
     * fits (a short write), the next one fails with ENOSPC. */
    size_t keep = len;
    uint64_t room = disk_room();
    if ((uint64_t)(pos + (int64_t)len - (int64_t)st.st_size) > room) {
      int64_t end = (int64_t)st.st_size + (int64_t)room;
      keep = end > pos ? (size_t)(end - pos) : 0;
      if (keep == 0) return fail_with(ENOSPC);
    }
    /* A full disk (or quota) as a fault: the write fails, or takes what
     * still fits. */
    int full = keep == len ? disk_full_fault(pc) : 0;
    if (full) {
      if (len < 2 || disk_fault_draw(2) == 0) return fail_with(full);
      keep = 1 + (size_t)disk_fault_draw(len - 1);
    }
    size_t left = keep;
    for (cutn = 0; cutn < iovcnt && left > 0; cutn++) {
      if (cut[cutn].iov_len > left) cut[cutn].iov_len = left;
      left -= cut[cutn].iov_len;
    }
    len = keep;
  }
  int64_t target = pos;
  bool misdirected = false;
  if (len > 0 && disk_fault_hits(DETSIM_FAULT_MISDIRECTED)) {
    /* The device puts the block elsewhere: the bytes land some pages
     * away, the place meant keeps what it had; the call succeeds. */
    disk_fault_injected(DETSIM_FAULT_MISDIRECTED, pc);
    uint64_t pages = 1 + disk_fault_draw(16);
    target = pos >= (int64_t)(pages * 4096) && disk_fault_draw(2) ? pos - (int64_t)(pages * 4096) : pos + (int64_t)(pages * 4096);
    misdirected = true;
  }
  if (detsim__disk.journal) {
    char path[PATH_MAX] = "";
    disk_fd_path(fd, path, sizeof path);
    int r = reader_of(fd);
    bool sync = (fl & (O_SYNC | O_DSYNC)) != 0;
    disk_journal_write(st.st_ino, path, target, len, st.st_size, r);
    close_reader(r);
    if (sync) disk_journal_mark(DISK_REC_FSYNC, st.st_ino, path);
  }
  ssize_t w;
  if (misdirected) {
    w = REAL(pwritev)(fd, cut, cutn, target);
    if (w > 0 && off < 0 && !(fl & O_APPEND)) lseek(fd, pos + w, SEEK_SET);
  } else if (off >= 0) {
    w = REAL(pwritev)(fd, cut, cutn, off);
  } else {
    w = REAL(writev)(fd, cut, cutn);
  }
  int e = errno;
  if (w > 0) disk_touch_fd(fd);
  errno = e;
  return w;
}

ssize_t detsim__disk_read_done(int fd, void *buf, ssize_t got, uintptr_t pc) {
  if (got < 0 || detsim__self() == NULL) return got;
  disk_take_time(DISK_OP_READ, (uint64_t)got, pc);
  if (got > 0 && disk_fault_hits(DETSIM_FAULT_CORRUPT)) {
    disk_fault_injected(DETSIM_FAULT_CORRUPT, pc);
    /* Beyond the envelope: a latent sector error (EIO), or a flipped bit
     * in what comes back (the file itself keeps its bytes). */
    if (disk_fault_draw(2) == 0) return fail_with(EIO);
    uint64_t bit = disk_fault_draw((uint64_t)got * 8);
    ((unsigned char *)buf)[bit / 8] ^= (unsigned char)(1u << (bit % 8));
  }
  (void)fd;
  return got;
}

/* A size change; `allocates`: the growth takes space (fallocate), not a
 * hole (ftruncate, which Linux grants on a full disk). */
static int size_change(int fd, int64_t new_size, bool allocates, uintptr_t pc) {
  struct stat st;
  if (fstat(fd, &st) != 0) return -1;
  disk_take_time(DISK_OP_META, 0, pc);
  if (allocates && new_size > (int64_t)st.st_size && (uint64_t)(new_size - (int64_t)st.st_size) > disk_room())
    return fail_with(ENOSPC);
  int full = new_size > (int64_t)st.st_size ? disk_full_fault(pc) : 0;
  if (full) return fail_with(full);
  if (detsim__disk.journal && S_ISREG(st.st_mode) && new_size != (int64_t)st.st_size) {
    char path[PATH_MAX] = "";
    disk_fd_path(fd, path, sizeof path);
    int r = reader_of(fd);
    disk_journal_size(st.st_ino, path, new_size, st.st_size, r);
    close_reader(r);
  }
  return 0;
}

int detsim__disk_ftruncate(int fd, off_t len, uintptr_t pc) {
  if (len < 0) return fail_with(EINVAL);
  if (size_change(fd, len, false, pc) != 0) return -1;
  int r = REAL(ftruncate)(fd, len);
  if (r == 0) disk_touch_fd(fd);
  return r;
}

int detsim__disk_fallocate(int fd, int mode, off_t off, off_t len, uintptr_t pc) {
  if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
    disk_fail("fallocate with FALLOC_FL_COLLAPSE_RANGE or FALLOC_FL_INSERT_RANGE on a file of the simulated disk is not modeled");
  struct stat st;
  if (fstat(fd, &st) != 0) return -1;
  if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
    /* Zeros over a range: undone as a write of zeros would be. */
    disk_take_time(DISK_OP_META, 0, pc);
    if (detsim__disk.journal) {
      char path[PATH_MAX] = "";
      disk_fd_path(fd, path, sizeof path);
      int r = reader_of(fd);
      disk_journal_write(st.st_ino, path, off, (uint64_t)len, st.st_size, r);
      close_reader(r);
    }
  } else if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > st.st_size) {
    if (size_change(fd, off + len, true, pc) != 0) return -1;
  } else {
    disk_take_time(DISK_OP_META, 0, pc);
    /* Blocks past the end without a new size: they need the room too
     * (the capacity counts sizes, so they hold none of it after). */
    if (off + len > st.st_size && (uint64_t)(off + len - st.st_size) > disk_room()) return fail_with(ENOSPC);
  }
  int r = REAL(fallocate)(fd, mode, off, len);
  if (r == 0) disk_touch_fd(fd);
  return r;
}

bool disk_sync_fails(uint64_t ino, uintptr_t pc) {
  if (eio_take(ino) || !disk_fault_hits(DETSIM_FAULT_EIO)) return false;
  disk_fault_injected(DETSIM_FAULT_EIO, pc);
  eio_note(ino);
  return true;
}

/* fsync and fdatasync: the file's data and size are durable (a
 * directory's: its names), or, with an EIO fault, its unsynced data is
 * gone for crash purposes and a retry succeeds without bringing it back,
 * as Linux does. */
int detsim__disk_fsync(int fd, uintptr_t pc) {
  struct stat st;
  if (fstat(fd, &st) != 0) return -1;
  disk_take_time(DISK_OP_SYNC, 0, pc);
  char path[PATH_MAX] = "";
  if (detsim__disk.journal) disk_fd_path(fd, path, sizeof path);
  bool failed = S_ISREG(st.st_mode) && disk_sync_fails(st.st_ino, pc);
  if (detsim__disk.journal) {
    if (S_ISDIR(st.st_mode)) disk_journal_mark(DISK_REC_DIRSYNC, st.st_ino, path);
    else disk_journal_mark(failed ? DISK_REC_FSYNC_FAIL : DISK_REC_FSYNC, st.st_ino, path);
    if (S_ISREG(st.st_mode) && disk_map_any()) {
      int r = reader_of(fd);
      disk_map_rearm_file(st.st_dev, st.st_ino, r);
      close_reader(r);
    }
  }
  if (failed) return fail_with(EIO);
  /* The kernel's own fsync is not needed: the simulation decides what a
   * crash keeps, and a real one would cost real time. */
  return 0;
}

int detsim__disk_syncall(uintptr_t pc) {
  disk_take_time(DISK_OP_SYNC, 0, pc);
  disk_journal_reset();
  disk_map_rearm_all();
  return 0;
}

/* ---- names ---- */

int detsim__disk_open(int dirfd, const char *path, int flags, mode_t mode) {
  uintptr_t pc = (uintptr_t)__builtin_return_address(0);
  char abs[PATH_MAX];
  if (!disk_resolve(dirfd, path, abs, sizeof abs)) return (int)REAL(openat)(dirfd, path, flags, mode);
  if ((flags & O_TMPFILE) == O_TMPFILE)
    disk_fail("open with O_TMPFILE on the simulated disk is not modeled (an unnamed file linked later by linkat)");
  struct stat st;
  bool exists = lstat(abs, &st) == 0;
  bool modifies = (flags & (O_CREAT | O_TRUNC)) != 0;
  if (modifies) disk_take_time(DISK_OP_META, 0, pc);
  int full = modifies && !exists ? disk_full_fault(pc) : 0;
  if (full) return fail_with(full);
  bool truncates = exists && S_ISREG(st.st_mode) && st.st_size > 0 && (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY;
  if (truncates && detsim__disk.journal) {
    int r = (int)REAL(open)(abs, O_RDONLY | O_CLOEXEC);
    disk_journal_size(st.st_ino, abs, 0, st.st_size, r);
    close_reader(r);
  }
  int fd = (int)REAL(openat)(dirfd, path, flags, mode);
  if (fd < 0) return fd;
  disk_fd_mark(fd, true);
  bool created = !exists && (flags & O_CREAT);
  if (created && detsim__disk.journal) disk_journal_name(DISK_REC_CREATE, abs, NULL, NULL, 0);
  if (created) touch_parent(abs);
  if (created || truncates) disk_touch_fd(fd);
  return fd;
}

int detsim__disk_close(int fd) {
  disk_fd_forget(fd);
  return REAL(close)(fd);
}

int detsim__disk_unlinkat(int dirfd, const char *path, int flags) {
  uintptr_t pc = (uintptr_t)__builtin_return_address(0);
  char abs[PATH_MAX];
  if (!disk_resolve(dirfd, path, abs, sizeof abs)) return REAL(unlinkat)(dirfd, path, flags);
  disk_take_time(DISK_OP_META, 0, pc);
  char keep[PATH_MAX] = "";
  if (detsim__disk.journal && !(flags & AT_REMOVEDIR)) disk_journal_keep(abs, keep, sizeof keep);
  int r = REAL(unlinkat)(dirfd, path, flags);
  int e = errno;
  if (r == 0 && detsim__disk.journal) disk_journal_name(DISK_REC_UNLINK, abs, keep, NULL, (flags & AT_REMOVEDIR) != 0);
  else if (keep[0]) REAL(unlink)(keep);
  if (r == 0) touch_parent(abs);
  errno = e;
  return r;
}

int detsim__disk_mkdirat(int dirfd, const char *path, mode_t mode, uintptr_t pc) {
  char abs[PATH_MAX];
  if (!disk_resolve(dirfd, path, abs, sizeof abs)) return REAL(mkdirat)(dirfd, path, mode);
  disk_take_time(DISK_OP_META, 0, pc);
  /* As open(O_CREAT): a full disk fails only a name that would be made
   * (Linux answers EEXIST for one that is there, whatever the space). */
  struct stat st;
  int full = lstat(abs, &st) != 0 ? disk_full_fault(pc) : 0;
  if (full) return fail_with(full);
  int r = REAL(mkdirat)(dirfd, path, mode);
  if (r == 0 && detsim__disk.journal) disk_journal_name(DISK_REC_CREATE, abs, NULL, NULL, 1);
  if (r == 0) {
    disk_touch_path(abs);
    touch_parent(abs);
  }
  return r;
}

int detsim__disk_symlinkat(const char *target, int dirfd, const char *path, uintptr_t pc) {
  char abs[PATH_MAX];
  if (!disk_resolve(dirfd, path, abs, sizeof abs)) return REAL(symlinkat)(target, dirfd, path);
  disk_take_time(DISK_OP_META, 0, pc);
  int r = REAL(symlinkat)(target, dirfd, path);
  if (r == 0 && detsim__disk.journal) disk_journal_name(DISK_REC_CREATE, abs, NULL, NULL, 0);
  if (r == 0) touch_parent(abs);
  return r;
}

int detsim__disk_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags,
                           uintptr_t pc) {
  char a[PATH_MAX], b[PATH_MAX];
  bool ra = disk_resolve(olddirfd, oldpath, a, sizeof a), rb = disk_resolve(newdirfd, newpath, b, sizeof b);
  bool ua = ra && disk_under(a), ub = rb && disk_under(b);
  if (!ua && !ub) return REAL(renameat2)(olddirfd, oldpath, newdirfd, newpath, flags);
  if (ua != ub)
    disk_fail("rename between the simulated disk and a directory outside it is not modeled (the data directory's "
              "files stay on it)");
  if (flags & RENAME_EXCHANGE) disk_fail("renameat2 with RENAME_EXCHANGE on the simulated disk is not modeled");
  disk_take_time(DISK_OP_META, 0, pc);
  char keep[PATH_MAX] = "";
  struct stat st;
  if (detsim__disk.journal && strcmp(a, b) != 0 && lstat(b, &st) == 0) disk_journal_keep(b, keep, sizeof keep);
  int r = REAL(renameat2)(olddirfd, oldpath, newdirfd, newpath, flags);
  int e = errno;
  if (r == 0 && detsim__disk.journal && strcmp(a, b) != 0) disk_journal_name(DISK_REC_RENAME, a, b, keep, 0);
  else if (keep[0]) REAL(unlink)(keep);
  if (r == 0) {
    touch_parent(a);
    touch_parent(b);
  }
  errno = e;
  return r;
}

int detsim__disk_linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags, uintptr_t pc) {
  char a[PATH_MAX], b[PATH_MAX];
  bool ub = disk_resolve(newdirfd, newpath, b, sizeof b) && disk_under(b);
  if (!ub) return REAL(linkat)(olddirfd, oldpath, newdirfd, newpath, flags);
  if (flags & AT_EMPTY_PATH) disk_fail("linkat with AT_EMPTY_PATH on the simulated disk is not modeled");
  if (!disk_resolve(olddirfd, oldpath, a, sizeof a)) snprintf(a, sizeof a, "%s", oldpath);
  disk_take_time(DISK_OP_META, 0, pc);
  int r = REAL(linkat)(olddirfd, oldpath, newdirfd, newpath, flags);
  if (r == 0 && detsim__disk.journal) disk_journal_name(DISK_REC_LINK, a, b, NULL, 0);
  if (r == 0) touch_parent(b);
  return r;
}

/* ---- lock waits ---- */

static bool never(void *arg) {
  (void)arg;
  return false;
}

/* How long a process waiting for another's lock sleeps between tries. */
#define LOCK_RETRY_NS 1000000ull

int detsim__disk_lock_wait(int fd, int cmd, void *arg, bool is_flock) {
  for (;;) {
    int r;
    if (is_flock) r = REAL(flock)(fd, (int)(intptr_t)arg | LOCK_NB);
    else r = REAL(fcntl)(fd, cmd == F_SETLKW ? F_SETLK : F_OFD_SETLK, arg);
    if (r == 0 || (errno != EAGAIN && errno != EACCES && errno != EWOULDBLOCK)) return r;
    if (detsim__self() == NULL) {
      if (is_flock) return REAL(flock)(fd, (int)(intptr_t)arg);
      return REAL(fcntl)(fd, cmd, arg);
    }
    if (detsim__block_intr(DETSIM_EV_disk_io, arg, never, NULL, detsim__now_ns() + LOCK_RETRY_NS) == EINTR)
      return fail_with(EINTR);
  }
}
