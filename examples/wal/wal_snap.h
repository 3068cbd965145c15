/* wal_snap: the snapshot file, DIR/snapshot: the whole state at one seq.
 *
 * Format:  "WALSNAP1" | seq u64 | count u32 | count entries | CRC-32 u32 of
 * everything before it (entries as in wal_record.h).
 *
 * It is replaced atomically: written whole to snapshot.tmp, fsynced, renamed
 * over snapshot, and then the directory is fsynced, because the rename is
 * durable only once the directory is.  Only after that may the log be
 * emptied (the caller's job).  A leftover snapshot.tmp (a crash mid-write)
 * is removed at start.
 */
#ifndef WAL_SNAP_H
#define WAL_SNAP_H

#include "wal_record.h"
#include "wal_state.h"

#define WAL_SNAP_BYTES_MAX (8 + 8 + 4 + WAL_KEYS_MAX * WAL_ENTRY_BYTES_MAX + 4)

/* Loads the snapshot into s (an empty state when there is none): 0, or -1
 * with a message (unreadable, or corrupt: a CRC or format mismatch). */
int wal_snap_load(int dir_fd, struct wal_state *s);
/* Writes s as the new snapshot, durably (see above): 0, or -1 with errno
 * set and the old snapshot still in place. */
int wal_snap_write(int dir_fd, const struct wal_state *s);

#endif
