/* wal_snap: loading and atomically replacing the snapshot (see wal_snap.h).
 *
 * The planted bug WAL_BUG_RENAME_NO_DIRSYNC leaves out the fsync of the
 * directory after the rename: the new name may not survive a crash of the
 * host while the log, emptied right after, does: acknowledged writes vanish.
 */
#define _GNU_SOURCE
#include "wal_snap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wal_crc32.h"

#define SNAP_NAME "snapshot"
#define SNAP_TMP_NAME "snapshot.tmp"
#define SNAP_MAGIC "WALSNAP1"

static unsigned char snap_buf[WAL_SNAP_BYTES_MAX];

int wal_snap_load(int dir_fd, struct wal_state *s) {
  memset(s, 0, sizeof *s);
  if (unlinkat(dir_fd, SNAP_TMP_NAME, 0) != 0 && errno != ENOENT) {
    fprintf(stderr, "wal_server: cannot remove %s: %s\n", SNAP_TMP_NAME, strerror(errno));
    return -1;
  }
  int fd = openat(dir_fd, SNAP_NAME, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return 0;
  if (fd < 0) {
    fprintf(stderr, "wal_server: cannot open %s: %s\n", SNAP_NAME, strerror(errno));
    return -1;
  }
  size_t n = 0;
  for (;;) {
    ssize_t k = read(fd, snap_buf + n, sizeof snap_buf - n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      fprintf(stderr, "wal_server: reading %s: %s\n", SNAP_NAME, strerror(errno));
      close(fd);
      return -1;
    }
    if (k == 0) break;
    n += (size_t)k;
    if (n == sizeof snap_buf) break;
  }
  close(fd);
  const char *why = NULL;
  if (n < 8 + 8 + 4 + 4 || memcmp(snap_buf, SNAP_MAGIC, 8) != 0) why = "not a snapshot (bad header)";
  else if (wal_crc32(0, snap_buf, n - 4) != wal_get_u32(snap_buf + n - 4)) why = "CRC mismatch";
  uint32_t count = why ? 0 : wal_get_u32(snap_buf + 16);
  if (!why && count > WAL_KEYS_MAX) why = "too many keys";
  size_t off = 20;
  for (uint32_t i = 0; !why && i < count; i++) {
    struct wal_entry e;
    size_t k = wal_entry_decode(snap_buf + off, n - 4 - off, &e);
    if (k == 0 || wal_state_set(s, e.key, e.version, e.value) != 0) why = "bad entry";
    off += k;
  }
  if (!why && off != n - 4) why = "trailing bytes";
  if (why) {
    fprintf(stderr, "wal_server: %s is corrupt: %s (%zu bytes)\n", SNAP_NAME, why, n);
    return -1;
  }
  s->seq = wal_get_u64(snap_buf + 8);
  return 0;
}

static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return -1;
    if (k == 0) {
      errno = EIO;
      return -1;
    }
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

int wal_snap_write(int dir_fd, const struct wal_state *s) {
  size_t n = 0;
  memcpy(snap_buf, SNAP_MAGIC, 8);
  wal_put_u64(snap_buf + 8, s->seq);
  wal_put_u32(snap_buf + 16, s->n);
  n = 20;
  for (unsigned i = 0; i < s->n; i++) n += wal_entry_encode(snap_buf + n, &s->e[i]);
  wal_put_u32(snap_buf + n, wal_crc32(0, snap_buf, n));
  n += 4;

  int fd = openat(dir_fd, SNAP_TMP_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  if (write_all(fd, snap_buf, n) != 0 || fsync(fd) != 0) {
    int err = errno;
    close(fd);
    unlinkat(dir_fd, SNAP_TMP_NAME, 0);
    errno = err;
    return -1;
  }
  if (close(fd) != 0 || renameat(dir_fd, SNAP_TMP_NAME, dir_fd, SNAP_NAME) != 0) {
    int err = errno;
    unlinkat(dir_fd, SNAP_TMP_NAME, 0);
    errno = err;
    return -1;
  }
#ifndef WAL_BUG_RENAME_NO_DIRSYNC
  if (fsync(dir_fd) != 0) return -1;
#endif
  return 0;
}
