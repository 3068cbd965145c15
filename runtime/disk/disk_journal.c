/* The undo journal of a node's disk (disk/disk.h).
 *
 * Appended with the real write(2), before the call it describes runs, to
 * <journal dir>/journal; undo links (files an unlink or a rename would
 * remove) are hard links <journal dir>/keep-N, on the same file system as
 * the data directory.  The journal is bounded
 * (DETSIM_DISK_JOURNAL_BYTES_MAX): past it the run ends with a clear error,
 * as sync() or syncfs() would have emptied it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk/disk.h"
#include "limits.h"
#include "intercept/intercept.h"

static int journal_fd = -1;
static uint64_t journal_bytes; /* what this process knows of its size */

static int journal(void) {
  if (journal_fd >= 0) return journal_fd;
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/journal", detsim__disk.journal_dir);
  journal_fd = (int)REAL(open)(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (journal_fd < 0) {
    char msg[PATH_MAX + 64];
    snprintf(msg, sizeof msg, "cannot open the disk's undo journal %s: %s", path, strerror(errno));
    disk_fail(msg);
  }
  return journal_fd;
}

static void put(const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t w = REAL(write)(journal(), c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) disk_fail("cannot append to the disk's undo journal");
    c += w;
    n -= (size_t)w;
  }
}

/* The journal's size as the file has it: other processes of the node
 * append too. */
static void reserve(uint64_t n) {
  struct stat st;
  if (fstat(journal(), &st) == 0) journal_bytes = (uint64_t)st.st_size;
  if (journal_bytes + n > DETSIM_DISK_JOURNAL_BYTES_MAX) {
    char msg[256];
    snprintf(msg, sizeof msg,
             "limit disk_journal_bytes=%llu reached: the node's unsynced writes need more undo journal than that "
             "(sync() or syncfs() makes everything durable and empties it; DETSIM_DISK_JOURNAL_BYTES_MAX in runtime/limits.h)",
             (unsigned long long)DETSIM_DISK_JOURNAL_BYTES_MAX);
    disk_fail(msg);
  }
  journal_bytes += n;
}

static void record(struct disk_rec_head h, const char *path, const char *path2, int readfd, int64_t pre_off,
                   const char *pre_bytes) {
  h.magic = DISK_REC_MAGIC;
  h.path_len = path ? (uint32_t)strlen(path) : 0;
  h.path2_len = path2 ? (uint32_t)strlen(path2) : 0;
  reserve(sizeof h + h.path_len + h.path2_len + h.pre_len);
  put(&h, sizeof h);
  if (h.path_len) put(path, h.path_len);
  if (h.path2_len) put(path2, h.path2_len);
  if (pre_bytes) {
    put(pre_bytes, h.pre_len);
    return;
  }
  char buf[65536];
  uint64_t done = 0;
  while (done < h.pre_len) {
    size_t want = h.pre_len - done < sizeof buf ? (size_t)(h.pre_len - done) : sizeof buf;
    ssize_t r = readfd >= 0 ? REAL(pread)(readfd, buf, want, (off_t)(pre_off + (int64_t)done)) : -1;
    if (r <= 0) { /* the file changed under us (another process truncated it): zeros stand in */
      memset(buf, 0, want);
      r = (ssize_t)want;
    }
    put(buf, (size_t)r);
    done += (uint64_t)r;
  }
}

/* A record of range [off, off + len) of a file of old_size bytes, with the
 * bytes of it that existed before (a write's, or a mapping's snapshot). */
static void range_record(uint32_t type, uint64_t ino, const char *path, int64_t off, uint64_t len, int64_t old_size,
                         int readfd) {
  struct disk_rec_head h = { 0 };
  h.type = type;
  h.ino = ino;
  h.off = off;
  h.len = len;
  h.old_size = old_size;
  int64_t end = off + (int64_t)len < old_size ? off + (int64_t)len : old_size;
  h.pre_len = end > off ? (uint64_t)(end - off) : 0;
  record(h, path, NULL, readfd, off, NULL);
}

void disk_journal_write(uint64_t ino, const char *path, int64_t off, uint64_t len, int64_t old_size, int readfd) {
  range_record(DISK_REC_WRITE, ino, path, off, len, old_size, readfd);
}

void disk_journal_write_pre(uint64_t ino, const char *path, int64_t off, uint64_t len, int64_t old_size,
                            const char *pre) {
  struct disk_rec_head h = { 0 };
  h.type = DISK_REC_WRITE;
  h.ino = ino;
  h.off = off;
  h.len = len;
  h.old_size = old_size;
  int64_t end = off + (int64_t)len < old_size ? off + (int64_t)len : old_size;
  h.pre_len = end > off ? (uint64_t)(end - off) : 0;
  static const char none[1];
  record(h, path, NULL, -1, off, h.pre_len ? pre : none);
}

void disk_journal_shift(uint64_t ino, const char *path, int64_t off, int64_t new_size, int64_t old_size,
                        const char *pre) {
  struct disk_rec_head h = { 0 };
  h.type = DISK_REC_SHIFT;
  h.ino = ino;
  h.off = off;
  h.len = (uint64_t)new_size;
  h.old_size = old_size;
  h.pre_len = old_size > off ? (uint64_t)(old_size - off) : 0;
  static const char none[1];
  record(h, path, NULL, -1, off, h.pre_len ? pre : none);
}

void disk_journal_size(uint64_t ino, const char *path, int64_t new_size, int64_t old_size, int readfd) {
  struct disk_rec_head h = { 0 };
  h.type = DISK_REC_SIZE;
  h.ino = ino;
  h.off = new_size;
  h.old_size = old_size;
  h.pre_len = new_size < old_size ? (uint64_t)(old_size - new_size) : 0;
  record(h, path, NULL, readfd, new_size, NULL);
}

void disk_journal_map(uint64_t ino, const char *path, int64_t off, uint64_t len, int64_t size, int readfd) {
  range_record(DISK_REC_MAP, ino, path, off, len, size, readfd);
}

void disk_journal_msync(uint64_t ino, const char *path, int64_t off, uint64_t len) {
  struct disk_rec_head h = { 0 };
  h.type = DISK_REC_MSYNC;
  h.ino = ino;
  h.off = off;
  h.len = len;
  record(h, path, NULL, -1, 0, NULL);
}

void disk_journal_mark(enum disk_rec type, uint64_t ino, const char *path) {
  struct disk_rec_head h = { 0 };
  h.type = type;
  h.ino = ino;
  record(h, path, NULL, -1, 0, NULL);
}

void disk_journal_name(enum disk_rec type, const char *path, const char *path2, const char *extra, uint64_t len) {
  struct disk_rec_head h = { 0 };
  h.type = type;
  h.len = len;
  h.pre_len = extra ? strlen(extra) : 0;
  record(h, path, path2, -1, 0, extra);
}

void disk_journal_keep(const char *path, char *out, size_t size) {
  out[0] = '\0';
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) return;
  for (unsigned tries = 0; tries < 1000; tries++) {
    /* Numbered by the journal's size: unique within it, whichever
     * process of the node links. */
    struct stat js;
    uint64_t n = fstat(journal(), &js) == 0 ? (uint64_t)js.st_size + tries : tries;
    snprintf(out, size, "%s/keep-%llu", detsim__disk.journal_dir, (unsigned long long)n);
    if (REAL(link)(path, out) == 0) return;
    if (errno != EEXIST) break;
  }
  out[0] = '\0';
}

void disk_journal_keep_copy(const char *path, char *out, size_t size) {
  out[0] = '\0';
  int in = (int)REAL(open)(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (in < 0) return;
  if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
    REAL(close)(in);
    return;
  }
  int o = -1;
  for (unsigned tries = 0; tries < 1000 && o < 0; tries++) {
    struct stat js;
    uint64_t n = fstat(journal(), &js) == 0 ? (uint64_t)js.st_size + tries : tries;
    snprintf(out, size, "%s/keep-%llu", detsim__disk.journal_dir, (unsigned long long)n);
    o = (int)REAL(open)(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
    if (o < 0 && errno != EEXIST) break;
  }
  if (o < 0) {
    REAL(close)(in);
    disk_fail("cannot copy a file leaving the data directory into the disk's undo journal");
  }
  char buf[65536];
  for (off_t at = 0;;) {
    ssize_t r = REAL(pread)(in, buf, sizeof buf, at);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (REAL(pwrite)(o, buf, (size_t)r, at) != r) disk_fail("cannot copy a file leaving the data directory into the disk's undo journal");
    at += r;
  }
  REAL(close)(in);
  REAL(close)(o);
}

void disk_remove_keeps(void) {
  DIR *d = opendir(detsim__disk.journal_dir);
  if (d == NULL) return;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (strncmp(e->d_name, "keep-", 5) != 0) continue;
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s", detsim__disk.journal_dir, e->d_name);
    REAL(unlink)(path);
  }
  closedir(d);
}

void disk_journal_reset(void) {
  if (!detsim__disk.journal) return;
  if (REAL(ftruncate)(journal(), 0) != 0) disk_fail("cannot empty the disk's undo journal");
  journal_bytes = 0;
  disk_remove_keeps();
}
