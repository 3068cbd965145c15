/* The interceptors of the calls only the simulated disk gives meaning to
 * (syncs, renames, links, directories, sizes, locks, positioned reads,
 * shared mappings).
 * A call on a file outside every data directory is the kernel's, except the
 * lock waits, which are scheduling points for every file (a process blocked
 * in the kernel on another's lock would hang the world).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "disk/disk.h"
#include "intercept/intercept.h"
#include "sched/sched.h"

#define PC() ((uintptr_t)__builtin_return_address(0))

static bool fd_on(int fd) { return detsim__self() != NULL && detsim__disk_fd_tracked(fd); }
static bool path_on(int dirfd, const char *path) { return detsim__self() != NULL && detsim__disk_path_tracked(dirfd, path); }

DETSIM_EXPORT int __detsim_fsync(int fd) {
  if (!fd_on(fd)) return REAL(fsync)(fd);
  return detsim__disk_fsync(fd, PC());
}
DETSIM_INTERCEPT_ALIAS(fsync)

DETSIM_EXPORT int __detsim_fdatasync(int fd) {
  if (!fd_on(fd)) return REAL(fdatasync)(fd);
  return detsim__disk_fsync(fd, PC());
}
DETSIM_INTERCEPT_ALIAS(fdatasync)

/* sync_file_range starts or waits for write-out of a range but flushes no
 * device cache and no metadata: it makes nothing durable (as the man page
 * warns), so it is only the disk's time here. */
DETSIM_EXPORT int __detsim_sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags) {
  if (!fd_on(fd)) return REAL(sync_file_range)(fd, off, n, flags);
  struct stat st;
  if (fstat(fd, &st) != 0) return -1;
  if (off < 0 || n < 0) {
    errno = EINVAL;
    return -1;
  }
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sync_file_range)

DETSIM_EXPORT void __detsim_sync(void) {
  if (detsim__self() == NULL || !detsim__disk_on()) {
    REAL(sync)();
    return;
  }
  detsim__disk_syncall(PC());
}
DETSIM_INTERCEPT_ALIAS(sync)

DETSIM_EXPORT int __detsim_syncfs(int fd) {
  if (!fd_on(fd)) return REAL(syncfs)(fd);
  return detsim__disk_syncall(PC());
}
DETSIM_INTERCEPT_ALIAS(syncfs)

DETSIM_EXPORT int __detsim_rename(const char *a, const char *b) {
  if (!path_on(AT_FDCWD, a) && !path_on(AT_FDCWD, b)) return REAL(rename)(a, b);
  return detsim__disk_renameat2(AT_FDCWD, a, AT_FDCWD, b, 0, PC());
}
DETSIM_INTERCEPT_ALIAS(rename)

DETSIM_EXPORT int __detsim_renameat(int da, const char *a, int db, const char *b) {
  if (!path_on(da, a) && !path_on(db, b)) return REAL(renameat)(da, a, db, b);
  return detsim__disk_renameat2(da, a, db, b, 0, PC());
}
DETSIM_INTERCEPT_ALIAS(renameat)

DETSIM_EXPORT int __detsim_renameat2(int da, const char *a, int db, const char *b, unsigned int flags) {
  if (!path_on(da, a) && !path_on(db, b)) return REAL(renameat2)(da, a, db, b, flags);
  return detsim__disk_renameat2(da, a, db, b, flags, PC());
}
DETSIM_INTERCEPT_ALIAS(renameat2)

DETSIM_EXPORT int __detsim_link(const char *a, const char *b) {
  if (!path_on(AT_FDCWD, b)) return REAL(link)(a, b);
  return detsim__disk_linkat(AT_FDCWD, a, AT_FDCWD, b, 0, PC());
}
DETSIM_INTERCEPT_ALIAS(link)

DETSIM_EXPORT int __detsim_linkat(int da, const char *a, int db, const char *b, int flags) {
  if (!path_on(db, b)) return REAL(linkat)(da, a, db, b, flags);
  return detsim__disk_linkat(da, a, db, b, flags, PC());
}
DETSIM_INTERCEPT_ALIAS(linkat)

DETSIM_EXPORT int __detsim_symlink(const char *target, const char *path) {
  if (!path_on(AT_FDCWD, path)) return REAL(symlink)(target, path);
  return detsim__disk_symlinkat(target, AT_FDCWD, path, PC());
}
DETSIM_INTERCEPT_ALIAS(symlink)

DETSIM_EXPORT int __detsim_symlinkat(const char *target, int dirfd, const char *path) {
  if (!path_on(dirfd, path)) return REAL(symlinkat)(target, dirfd, path);
  return detsim__disk_symlinkat(target, dirfd, path, PC());
}
DETSIM_INTERCEPT_ALIAS(symlinkat)

DETSIM_EXPORT int __detsim_mkdir(const char *path, mode_t mode) {
  if (!path_on(AT_FDCWD, path)) return REAL(mkdir)(path, mode);
  return detsim__disk_mkdirat(AT_FDCWD, path, mode, PC());
}
DETSIM_INTERCEPT_ALIAS(mkdir)

DETSIM_EXPORT int __detsim_mkdirat(int dirfd, const char *path, mode_t mode) {
  if (!path_on(dirfd, path)) return REAL(mkdirat)(dirfd, path, mode);
  return detsim__disk_mkdirat(dirfd, path, mode, PC());
}
DETSIM_INTERCEPT_ALIAS(mkdirat)

DETSIM_EXPORT int __detsim_rmdir(const char *path) {
  if (!path_on(AT_FDCWD, path)) return REAL(rmdir)(path);
  return detsim__disk_unlinkat(AT_FDCWD, path, AT_REMOVEDIR);
}
DETSIM_INTERCEPT_ALIAS(rmdir)

DETSIM_EXPORT int __detsim_ftruncate(int fd, off_t len) {
  if (!fd_on(fd)) return REAL(ftruncate)(fd, len);
  return detsim__disk_ftruncate(fd, len, PC());
}
DETSIM_INTERCEPT_ALIAS(ftruncate)

DETSIM_EXPORT int __detsim_ftruncate64(int fd, off64_t len) {
  if (!fd_on(fd)) return REAL(ftruncate64)(fd, len);
  return detsim__disk_ftruncate(fd, len, PC());
}
DETSIM_INTERCEPT_ALIAS(ftruncate64)

static int truncate_path(const char *path, off_t len, uintptr_t pc) {
  int fd = (int)REAL(open)(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  int r = detsim__disk_ftruncate(fd, len, pc);
  int e = errno;
  REAL(close)(fd);
  errno = e;
  return r;
}

DETSIM_EXPORT int __detsim_truncate(const char *path, off_t len) {
  if (!path_on(AT_FDCWD, path)) return REAL(truncate)(path, len);
  return truncate_path(path, len, PC());
}
DETSIM_INTERCEPT_ALIAS(truncate)

DETSIM_EXPORT int __detsim_truncate64(const char *path, off64_t len) {
  if (!path_on(AT_FDCWD, path)) return REAL(truncate64)(path, len);
  return truncate_path(path, len, PC());
}
DETSIM_INTERCEPT_ALIAS(truncate64)

DETSIM_EXPORT int __detsim_fallocate(int fd, int mode, off_t off, off_t len) {
  if (!fd_on(fd)) return REAL(fallocate)(fd, mode, off, len);
  return detsim__disk_fallocate(fd, mode, off, len, PC());
}
DETSIM_INTERCEPT_ALIAS(fallocate)

DETSIM_EXPORT int __detsim_fallocate64(int fd, int mode, off64_t off, off64_t len) {
  if (!fd_on(fd)) return REAL(fallocate64)(fd, mode, off, len);
  return detsim__disk_fallocate(fd, mode, off, len, PC());
}
DETSIM_INTERCEPT_ALIAS(fallocate64)

/* posix_fallocate returns the error instead of setting errno. */
DETSIM_EXPORT int __detsim_posix_fallocate(int fd, off_t off, off_t len) {
  if (!fd_on(fd)) return REAL(posix_fallocate)(fd, off, len);
  return detsim__disk_fallocate(fd, 0, off, len, PC()) == 0 ? 0 : errno;
}
DETSIM_INTERCEPT_ALIAS(posix_fallocate)

DETSIM_EXPORT int __detsim_posix_fallocate64(int fd, off64_t off, off64_t len) {
  if (!fd_on(fd)) return REAL(posix_fallocate64)(fd, off, len);
  return detsim__disk_fallocate(fd, 0, off, len, PC()) == 0 ? 0 : errno;
}
DETSIM_INTERCEPT_ALIAS(posix_fallocate64)

DETSIM_EXPORT int __detsim_flock(int fd, int op) {
  if (detsim__self() == NULL || (op & LOCK_NB) || (op & ~LOCK_NB) == LOCK_UN) return REAL(flock)(fd, op);
  return detsim__disk_lock_wait(fd, 0, (void *)(intptr_t)op, true);
}
DETSIM_INTERCEPT_ALIAS(flock)

DETSIM_EXPORT ssize_t __detsim_pread(int fd, void *buf, size_t n, off_t off) {
  ssize_t r = REAL(pread)(fd, buf, n, off);
  return fd_on(fd) ? detsim__disk_read_done(fd, buf, r, PC()) : r;
}
DETSIM_INTERCEPT_ALIAS(pread)

DETSIM_EXPORT ssize_t __detsim_pread64(int fd, void *buf, size_t n, off64_t off) {
  ssize_t r = REAL(pread64)(fd, buf, n, off);
  return fd_on(fd) ? detsim__disk_read_done(fd, buf, r, PC()) : r;
}
DETSIM_INTERCEPT_ALIAS(pread64)

/* copy_file_range into a file of the disk: its bytes through the disk
 * (disk_copy.c); elsewhere the kernel's. */
DETSIM_EXPORT ssize_t __detsim_copy_file_range(int in, off64_t *in_off, int out, off64_t *out_off, size_t n,
                                               unsigned int flags) {
  if (fd_on(out)) return detsim__disk_copy_file_range(in, in_off, out, out_off, n, flags, PC());
  return REAL(copy_file_range)(in, in_off, out, out_off, n, flags);
}
DETSIM_INTERCEPT_ALIAS(copy_file_range)

/* Shared mappings (disk_map.c): a MAP_SHARED mapping of a file of the disk
 * is tracked, so its stores are in the crash model; every other mapping is
 * the kernel's, and munmap, mremap, mprotect and msync of a process holding
 * no tracked mapping go straight to it. */
static bool maps_on(void) { return detsim__self() != NULL && detsim__disk_on(); }

DETSIM_EXPORT void *__detsim_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  if (!maps_on()) return REAL(mmap)(addr, len, prot, flags, fd, off);
  return detsim__disk_mmap(addr, len, prot, flags, fd, off, PC());
}
DETSIM_INTERCEPT_ALIAS(mmap)

DETSIM_EXPORT void *__detsim_mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off) {
  if (!maps_on()) return REAL(mmap64)(addr, len, prot, flags, fd, off);
  return detsim__disk_mmap(addr, len, prot, flags, fd, off, PC());
}
DETSIM_INTERCEPT_ALIAS(mmap64)

DETSIM_EXPORT int __detsim_munmap(void *addr, size_t len) {
  if (!detsim__disk_maps_held() || detsim__self() == NULL) return REAL(munmap)(addr, len);
  return detsim__disk_munmap(addr, len);
}
DETSIM_INTERCEPT_ALIAS(munmap)

DETSIM_EXPORT void *__detsim_mremap(void *old, size_t old_len, size_t new_len, int flags, ...) {
  void *new_addr = NULL;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    new_addr = va_arg(ap, void *);
    va_end(ap);
  }
  if (!detsim__disk_maps_held() || detsim__self() == NULL) return REAL(mremap)(old, old_len, new_len, flags, new_addr);
  return detsim__disk_mremap(old, old_len, new_len, flags, new_addr);
}
DETSIM_INTERCEPT_ALIAS(mremap)

DETSIM_EXPORT int __detsim_mprotect(void *addr, size_t len, int prot) {
  if (!detsim__disk_maps_held() || detsim__self() == NULL) return REAL(mprotect)(addr, len, prot);
  return detsim__disk_mprotect(addr, len, prot);
}
DETSIM_INTERCEPT_ALIAS(mprotect)

DETSIM_EXPORT int __detsim_msync(void *addr, size_t len, int flags) {
  if (!detsim__disk_maps_held() || detsim__self() == NULL) return REAL(msync)(addr, len, flags);
  return detsim__disk_msync(addr, len, flags, PC());
}
DETSIM_INTERCEPT_ALIAS(msync)
