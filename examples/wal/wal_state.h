/* wal_state: the server's data in memory: a table of key -> (version,
 * value) and the sequence number of the last write applied to it.
 *
 * A write carries the client's version of the key and is applied only when
 * it is newer than the stored one, so a request retransmitted late (its
 * connection held back by the network while the client retried on a new
 * one) never overwrites a later write.
 *
 * It is what the snapshot stores and what replaying the log rebuilds.  The
 * table is fixed-size (WAL_KEYS_MAX): a PUT of a new key into a full table
 * is refused with ERR full, never an overflow.
 */
#ifndef WAL_STATE_H
#define WAL_STATE_H

#include <stdint.h>

/* Distinct keys the server holds: the example's client uses a handful. */
#define WAL_KEYS_MAX 256
/* A key or a value is one word of at most this many bytes, so a record's
 * length fits in a byte per field and a protocol line always fits. */
#define WAL_WORD_MAX 63

struct wal_entry {
  char key[WAL_WORD_MAX + 1];
  char value[WAL_WORD_MAX + 1];
  uint64_t version;
};

struct wal_state {
  uint64_t seq;
  unsigned n;
  struct wal_entry e[WAL_KEYS_MAX];
};

/* The entry of key, or NULL. */
const struct wal_entry *wal_state_get(const struct wal_state *s, const char *key);
/* Whether a write of key at version would change the table: the key is
 * new or its stored version is older. */
int wal_state_is_newer(const struct wal_state *s, const char *key, uint64_t version);
/* Whether set(key) would succeed (the key exists or there is room). */
int wal_state_has_room(const struct wal_state *s, const char *key);
/* Sets key to (version, value) when newer: 0, or -1 when key is new and the
 * table is full. */
int wal_state_set(struct wal_state *s, const char *key, uint64_t version, const char *value);
/* A word the protocol and the formats accept: 1 to WAL_WORD_MAX bytes of
 * printable non-blank ASCII. */
int wal_word_ok(const char *w);

#endif
