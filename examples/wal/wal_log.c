/* wal_log: appending, syncing, replaying and cutting the log (rules in
 * wal_log.h).  Records are written with pwrite at the known end, not with
 * O_APPEND, so a failed write never leaves the end in doubt. */
#define _GNU_SOURCE
#include "wal_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wal_crc32.h"
#include "wal_record.h"

#define WAL_LOG_NAME "wal.log"

static int pwrite_all(int fd, const unsigned char *p, size_t n, uint64_t off) {
  while (n > 0) {
    ssize_t k = pwrite(fd, p, n, (off_t)off);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return -1;
    if (k == 0) {
      errno = EIO;
      return -1;
    }
    p += k;
    n -= (size_t)k;
    off += (uint64_t)k;
  }
  return 0;
}

/* Reads up to n bytes at off: the count (short at the end of the file), or
 * -1. */
static ssize_t pread_full(int fd, unsigned char *p, size_t n, uint64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t k = pread(fd, p + got, n - got, (off_t)(off + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return -1;
    if (k == 0) break;
    got += (size_t)k;
  }
  return (ssize_t)got;
}

/* Makes the file exactly `end` bytes long, durably. */
static int cut_to_end(struct wal_log *l) {
  if (ftruncate(l->fd, (off_t)l->end) != 0 || fsync(l->fd) != 0) return -1;
  l->pending = 0;
  l->cut_needed = 0;
  return 0;
}

/* Reads the record at off: its length, 0 at a clean end of file, -1 when
 * the record is torn or bad, -2 on a read error. */
static ssize_t read_record(int fd, uint64_t off, uint64_t *seq, struct wal_entry *e) {
  unsigned char buf[WAL_RECORD_BYTES_MAX];
  ssize_t got = pread_full(fd, buf, WAL_RECORD_HEADER_BYTES, off);
  if (got < 0) return -2;
  if (got == 0) return 0;
  if (got < WAL_RECORD_HEADER_BYTES) return -1;
  uint32_t len = wal_get_u32(buf), crc = wal_get_u32(buf + 4);
  if (len < WAL_RECORD_PAYLOAD_MIN || len > WAL_RECORD_PAYLOAD_MAX) return -1;
  got = pread_full(fd, buf, len, off + WAL_RECORD_HEADER_BYTES);
  if (got < 0) return -2;
  if ((size_t)got < len || wal_crc32(0, buf, len) != crc) return -1;
  *seq = wal_get_u64(buf);
  if (wal_entry_decode(buf + 8, len - 8, e) != len - 8) return -1;
  return (ssize_t)(WAL_RECORD_HEADER_BYTES + len);
}

int wal_log_open(struct wal_log *l, int dir_fd, struct wal_state *s, struct wal_replay *r) {
  memset(r, 0, sizeof *r);
  l->dir_fd = dir_fd;
  l->end = l->pending = 0;
  l->cut_needed = 0;
  l->fd = openat(dir_fd, WAL_LOG_NAME, O_RDWR | O_CLOEXEC);
  if (l->fd < 0 && errno == ENOENT) {
    l->fd = openat(dir_fd, WAL_LOG_NAME, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (l->fd >= 0 && (fsync(l->fd) != 0 || fsync(dir_fd) != 0)) {
      fprintf(stderr, "wal_server: cannot make the new %s durable: %s\n", WAL_LOG_NAME, strerror(errno));
      close(l->fd);
      unlinkat(dir_fd, WAL_LOG_NAME, 0);
      return -1;
    }
  }
  if (l->fd < 0) {
    fprintf(stderr, "wal_server: cannot open %s: %s\n", WAL_LOG_NAME, strerror(errno));
    return -1;
  }
  uint64_t off = 0, last_seq = 0;
  for (;;) {
    uint64_t seq;
    struct wal_entry e;
    ssize_t n = read_record(l->fd, off, &seq, &e);
    if (n == -2) {
      fprintf(stderr, "wal_server: reading %s at %llu: %s\n", WAL_LOG_NAME, (unsigned long long)off, strerror(errno));
      return -1;
    }
    /* Sequence numbers only grow in one log: a smaller one is not ours. */
    if (n == 0 || n == -1 || (last_seq && seq <= last_seq)) break;
    last_seq = seq;
    if (seq <= s->seq) {
      r->stale++;
    } else if (wal_state_set(s, e.key, e.version, e.value) != 0) {
      fprintf(stderr, "wal_server: %s holds more than %d keys\n", WAL_LOG_NAME, WAL_KEYS_MAX);
      return -1;
    } else {
      s->seq = seq;
      r->records++;
    }
    off += (uint64_t)n;
  }
  struct stat st;
  if (fstat(l->fd, &st) != 0) return -1;
  l->end = off;
  if ((uint64_t)st.st_size > off) {
    r->torn_bytes = (uint64_t)st.st_size - off;
    if (cut_to_end(l) != 0) {
      fprintf(stderr, "wal_server: cannot truncate the bad tail of %s: %s\n", WAL_LOG_NAME, strerror(errno));
      return -1;
    }
  }
  return 0;
}

int wal_log_write(struct wal_log *l, uint64_t seq, const struct wal_entry *e) {
  if (l->cut_needed && cut_to_end(l) != 0) return -1;
  unsigned char buf[WAL_RECORD_BYTES_MAX];
  size_t n = wal_record_encode(buf, seq, e);
  if (pwrite_all(l->fd, buf, n, l->end + l->pending) != 0) {
    l->cut_needed = 1;
    return -1;
  }
  l->pending += n;
  return 0;
}

int wal_log_sync(struct wal_log *l) {
  if (l->cut_needed) {
    errno = EIO;
    return -1;
  }
  if (fdatasync(l->fd) != 0) {
    l->cut_needed = 1;
    return -1;
  }
  l->end += l->pending;
  l->pending = 0;
  return 0;
}

int wal_log_reset(struct wal_log *l) {
  l->end = 0;
  if (cut_to_end(l) != 0) {
    l->cut_needed = 1;
    return -1;
  }
  return 0;
}

void wal_log_close(struct wal_log *l) {
  if (l->fd >= 0) close(l->fd);
  l->fd = -1;
}
