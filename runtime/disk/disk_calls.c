/* The modifying calls on files of the simulated disk (docs/disk.md): each is
 * a yield point that takes the disk's time, may meet a storage fault, and
 * (when a crash can lose) appends to the undo journal what it changes
 * before it changes it.  The file operations themselves are the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "time/time.h"
#include "disk/disk.h"
#include "limits.h"
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
  /* The kernel's EBADF, before a record of a write that never happens. */
  if ((fl & O_ACCMODE) == O_RDONLY) return fail_with(EBADF);
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

/* Linux 6.17's zeroing mode (written zeros, not unwritten extents): on the
 * disk as ZERO_RANGE, whichever headers the build has. */
#define FALLOC_WRITE_ZEROES 0x80

/* The bytes [off, off + len) of fd into memory (a pre-image read before a
 * call that may fail; NULL for none); zeros where the file has none. */
static char *pre_image(int fd, int64_t off, size_t len, const char *what) {
  if (len == 0) return NULL;
  if (len > DETSIM_DISK_JOURNAL_BYTES_MAX) {
    char msg[256];
    snprintf(msg, sizeof msg, "limit disk_journal_bytes=%llu reached: the pre-image of %s needs more undo journal",
             (unsigned long long)DETSIM_DISK_JOURNAL_BYTES_MAX, what);
    disk_fail(msg);
  }
  char *pre = malloc(len);
  int rd = reader_of(fd);
  if (pre == NULL || rd < 0) disk_fail("cannot read a pre-image for the disk's undo journal");
  for (size_t got = 0; got < len;) {
    ssize_t k = REAL(pread)(rd, pre + got, len - got, (off_t)off + (off_t)got);
    if (k <= 0) {
      memset(pre + got, 0, len - got);
      break;
    }
    got += (size_t)k;
  }
  close_reader(rd);
  return pre;
}

/* COLLAPSE_RANGE and INSERT_RANGE move every byte past off (ext4 writes
 * the file's dirty pages back first, then shifts its extents in one
 * journal transaction): one SHIFT record with the file's tail as it was,
 * which a power loss keeps or undoes whole (disk_rollback.c). */
static int shift_range(int fd, int mode, off_t off, off_t len, const struct stat *st, uintptr_t pc) {
  disk_take_time(DISK_OP_SYNC, 0, pc); /* it waits for the file's write-back */
  bool rec = detsim__disk.journal && off >= 0 && off < st->st_size;
  char *pre = rec ? pre_image(fd, off, (size_t)(st->st_size - off), "a COLLAPSE_RANGE or INSERT_RANGE") : NULL;
  int r = REAL(fallocate)(fd, mode, off, len);
  int e = errno;
  if (r == 0 && rec) {
    char path[PATH_MAX] = "";
    disk_fd_path(fd, path, sizeof path);
    int64_t new_size = (mode & FALLOC_FL_COLLAPSE_RANGE) ? st->st_size - len : st->st_size + len;
    disk_journal_shift(st->st_ino, path, off, new_size, st->st_size, pre);
    if (disk_map_any()) { /* a mapping's stores from here on are on the new layout */
      int rd = reader_of(fd);
      disk_map_rearm_file(st->st_dev, st->st_ino, rd);
      close_reader(rd);
    }
  }
  free(pre);
  if (r == 0) disk_touch_fd(fd);
  errno = e;
  return r;
}

/* PUNCH_HOLE and ZERO_RANGE: zeros over the range, undone as a write of
 * zeros would be.  With KEEP_SIZE (always, for a hole) only the bytes
 * within the file change; ZERO_RANGE without it may grow the file.  The
 * pre-image is read first and recorded once the kernel has accepted the
 * call (its EINVAL, EOPNOTSUPP, EBADF are its own). */
static int zero_range(int fd, int mode, off_t off, off_t len, const struct stat *st, uintptr_t pc) {
  disk_take_time(DISK_OP_META, 0, pc);
  bool keeps_size = (mode & FALLOC_FL_KEEP_SIZE) != 0;
  int64_t end = off >= 0 && len > 0 ? (int64_t)off + (int64_t)len : 0;
  if (!keeps_size && end > st->st_size && (uint64_t)(end - st->st_size) > disk_room()) return fail_with(ENOSPC);
  int64_t rec_end = keeps_size && end > st->st_size ? (int64_t)st->st_size : end;
  int64_t pre_end = rec_end < st->st_size ? rec_end : (int64_t)st->st_size;
  char *pre = NULL;
  if (detsim__disk.journal && pre_end > off) pre = pre_image(fd, off, (size_t)(pre_end - off), "a PUNCH_HOLE or ZERO_RANGE");
  int r = REAL(fallocate)(fd, mode, off, len);
  int e = errno;
  if (r == 0 && detsim__disk.journal && rec_end > off) {
    char path[PATH_MAX] = "";
    disk_fd_path(fd, path, sizeof path);
    disk_journal_write_pre(st->st_ino, path, off, (uint64_t)(rec_end - off), st->st_size, pre);
  }
  free(pre);
  if (r == 0) disk_touch_fd(fd);
  errno = e;
  return r;
}

int detsim__disk_fallocate(int fd, int mode, off_t off, off_t len, uintptr_t pc) {
  struct stat st;
  if (fstat(fd, &st) != 0) return -1;
  if (mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)) return shift_range(fd, mode, off, len, &st, pc);
  if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | FALLOC_WRITE_ZEROES))
    return zero_range(fd, mode, off, len, &st, pc);
  /* Any other mode (UNSHARE_RANGE, bits Linux adds): the kernel's answer. */
  if (mode & ~FALLOC_FL_KEEP_SIZE) return (int)REAL(fallocate)(fd, mode, off, len);
  if (off < 0 || len <= 0) return fail_with(EINVAL);
  if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > st.st_size) {
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

/* A new file (created, O_TMPFILE): the journal's records of its inode
 * number so far were another file's (an unnamed one closed, whose number
 * the file system gave out again). */
static void mark_born(int fd, const char *path) {
  struct stat st;
  if (detsim__disk.journal && fstat(fd, &st) == 0) disk_journal_mark(DISK_REC_BORN, st.st_ino, path);
}

int detsim__disk_open(int dirfd, const char *path, int flags, mode_t mode) {
  uintptr_t pc = (uintptr_t)__builtin_return_address(0);
  char abs[PATH_MAX];
  if (!disk_resolve(dirfd, path, abs, sizeof abs)) return (int)REAL(openat)(dirfd, path, flags, mode);
  if ((flags & O_TMPFILE) == O_TMPFILE) {
    /* An unnamed file in that directory: no name to journal (a power loss
     * before linkat names it leaves nothing of it, as Linux frees an
     * orphan at mount); its writes are journaled by inode like any
     * file's, so once a link names it they are rolled as its data. */
    disk_take_time(DISK_OP_META, 0, pc);
    int full = disk_full_fault(pc);
    if (full) return fail_with(full);
    int fd = (int)REAL(openat)(dirfd, path, flags, mode);
    if (fd < 0) return fd;
    disk_fd_mark(fd, true);
    mark_born(fd, abs);
    disk_touch_fd(fd);
    return fd;
  }
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
  if (created) mark_born(fd, abs);
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

/* A rename with one name on the disk and the other outside it (the kernel
 * answers EXDEV when the data directory is on another file system).  A
 * file that enters the disk is a new name there (ENTER: undone by removing
 * it, the file it replaced back); one that leaves is an unlink on the disk
 * whose way back is a copy made now (its inode lives on outside, where no
 * power loss reaches).  An exchange across is both at once. */
static int rename_across(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags,
                         const char *a, const char *b, bool a_on, uintptr_t pc) {
  disk_take_time(DISK_OP_META, 0, pc);
  const char *on = a_on ? a : b;
  bool exchange = (flags & RENAME_EXCHANGE) != 0;
  char keep[PATH_MAX] = "";
  struct stat st;
  bool existed = lstat(on, &st) == 0;
  if (detsim__disk.journal && existed) {
    /* What leaves (the old name's file, or an exchange's disk side) keeps
     * its inode outside: a copy; what a file entering replaces: a link. */
    if (a_on || exchange) disk_journal_keep_copy(on, keep, sizeof keep);
    else disk_journal_keep(on, keep, sizeof keep);
  }
  int r = REAL(renameat2)(olddirfd, oldpath, newdirfd, newpath, flags);
  int e = errno;
  if (r == 0) {
    disk_fd_forget_all();
    if (detsim__disk.journal) {
      if (a_on && !exchange) disk_journal_name(DISK_REC_UNLINK, a, keep, NULL, existed && S_ISDIR(st.st_mode));
      else disk_journal_name(DISK_REC_ENTER, "", on, keep, 0);
      struct stat now;
      if (!(a_on && !exchange) && lstat(on, &now) == 0) disk_journal_mark(DISK_REC_BORN, now.st_ino, on);
    }
    touch_parent(on);
  } else if (keep[0]) {
    REAL(unlink)(keep);
  }
  errno = e;
  return r;
}

int detsim__disk_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags,
                           uintptr_t pc) {
  char a[PATH_MAX], b[PATH_MAX];
  bool ra = disk_resolve(olddirfd, oldpath, a, sizeof a), rb = disk_resolve(newdirfd, newpath, b, sizeof b);
  bool ua = ra && disk_under(a), ub = rb && disk_under(b);
  if (!ua && !ub) return REAL(renameat2)(olddirfd, oldpath, newdirfd, newpath, flags);
  if (ua != ub) return rename_across(olddirfd, oldpath, newdirfd, newpath, flags, a, b, ua, pc);
  disk_take_time(DISK_OP_META, 0, pc);
  bool exchange = (flags & RENAME_EXCHANGE) != 0;
  char keep[PATH_MAX] = "";
  struct stat st;
  /* An exchange replaces nothing: undone by exchanging back. */
  if (detsim__disk.journal && !exchange && strcmp(a, b) != 0 && lstat(b, &st) == 0) disk_journal_keep(b, keep, sizeof keep);
  int r = REAL(renameat2)(olddirfd, oldpath, newdirfd, newpath, flags);
  int e = errno;
  if (r == 0 && detsim__disk.journal && strcmp(a, b) != 0)
    disk_journal_name(exchange ? DISK_REC_EXCHANGE : DISK_REC_RENAME, a, b, keep, 0);
  else if (keep[0]) REAL(unlink)(keep);
  if (r == 0) {
    touch_parent(a);
    touch_parent(b);
  }
  errno = e;
  return r;
}

/* A new name for a file: the file at oldpath, or (AT_EMPTY_PATH) the one
 * olddirfd is open on, which is how an O_TMPFILE file gets its name;
 * linking /proc/self/fd/N with AT_SYMLINK_FOLLOW does the same. */
int detsim__disk_linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags, uintptr_t pc) {
  char a[PATH_MAX], b[PATH_MAX];
  bool ub = disk_resolve(newdirfd, newpath, b, sizeof b) && disk_under(b);
  if (!ub) return REAL(linkat)(olddirfd, oldpath, newdirfd, newpath, flags);
  bool by_fd = (flags & AT_EMPTY_PATH) && oldpath != NULL && oldpath[0] == '\0';
  if (by_fd ? !disk_fd_path(olddirfd, a, sizeof a) : !disk_resolve(olddirfd, oldpath, a, sizeof a))
    snprintf(a, sizeof a, "%s", oldpath != NULL ? oldpath : "");
  disk_take_time(DISK_OP_META, 0, pc);
  int r = REAL(linkat)(olddirfd, oldpath, newdirfd, newpath, flags);
  int e = errno;
  if (r == 0 && detsim__disk.journal) disk_journal_name(DISK_REC_LINK, a, b, NULL, 0);
  if (r == 0) {
    /* A /proc/self/fd/N link names the file its descriptor is open on. */
    char target[PATH_MAX];
    ssize_t n = strncmp(a, "/proc/", 6) == 0 ? REAL(readlink)(a, target, sizeof target - 1) : -1;
    if (n > 0) target[n] = '\0';
    if (!disk_under(n > 0 ? target : a)) {
      /* A file from outside now has a name on the disk: new to it. */
      disk_fd_forget_all();
      struct stat st;
      if (detsim__disk.journal && lstat(b, &st) == 0) disk_journal_mark(DISK_REC_BORN, st.st_ino, b);
    }
    touch_parent(b);
  }
  errno = e;
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
