/* wal_log: the write-ahead log file, DIR/wal.log.
 *
 * Rules it keeps:
 * - A record is acknowledged only once fsync of the log returned success
 *   after it was written (wal_log_write then wal_log_sync).
 * - `end` is the offset up to which the file is known durable and good.
 *   Anything past it (a record whose write or fsync failed) is of unknown
 *   fate: after a failed fsync Linux may drop those pages and report the
 *   next fsync clean, so the log cuts itself back to `end` (ftruncate and a
 *   successful fsync) before it writes again.
 * - A new log file's name is durable only once its directory is synced:
 *   opening creates the file, then fsyncs the directory.
 * - Replay at start stops at the first torn or bad record and truncates it
 *   (and everything after it) away, durably, before any new write.
 */
#ifndef WAL_LOG_H
#define WAL_LOG_H

#include <stdint.h>

#include "wal_state.h"

struct wal_log {
  int fd;
  int dir_fd;
  uint64_t end;      /* durable, good bytes */
  uint64_t pending;  /* bytes written past end, not yet synced */
  int cut_needed;    /* a write or sync failed: cut back to end first */
};

struct wal_replay {
  unsigned records;       /* applied to the state */
  unsigned stale;         /* already in the snapshot (seq <= its seq) */
  uint64_t torn_bytes;    /* truncated away at the tail */
};

/* Opens (creating) wal.log in dir_fd, replays it into s and truncates a
 * bad tail.  0, or -1 with a message on stderr. */
int wal_log_open(struct wal_log *l, int dir_fd, struct wal_state *s, struct wal_replay *r);
/* Writes one record after the durable end: 0, or -1 (errno set). */
int wal_log_write(struct wal_log *l, uint64_t seq, const struct wal_entry *e);
/* Makes what was written durable: 0, or -1 (errno set; the written
 * records are given up and cut away before the next write). */
int wal_log_sync(struct wal_log *l);
/* Empties the log (a snapshot now holds everything): 0, or -1. */
int wal_log_reset(struct wal_log *l);
void wal_log_close(struct wal_log *l);

#endif
