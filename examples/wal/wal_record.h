/* wal_record: the byte formats of the log and the snapshot, both
 * little-endian whatever the host.
 *
 * An entry is  version u64 | key length u8 | key | value length u8 | value.
 * A log record is  payload length u32 | CRC-32 of the payload u32 | payload,
 * the payload being  seq u64 | entry.  A record whose length is out of
 * range, whose bytes end early, whose CRC does not match or whose entry
 * does not decode exactly is bad: replay stops there.
 */
#ifndef WAL_RECORD_H
#define WAL_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "wal_state.h"

#define WAL_ENTRY_BYTES_MAX (8 + 1 + WAL_WORD_MAX + 1 + WAL_WORD_MAX)
#define WAL_ENTRY_BYTES_MIN (8 + 1 + 1 + 1 + 1)
#define WAL_RECORD_HEADER_BYTES 8
#define WAL_RECORD_PAYLOAD_MAX (8 + WAL_ENTRY_BYTES_MAX)
#define WAL_RECORD_PAYLOAD_MIN (8 + WAL_ENTRY_BYTES_MIN)
#define WAL_RECORD_BYTES_MAX (WAL_RECORD_HEADER_BYTES + WAL_RECORD_PAYLOAD_MAX)

void wal_put_u32(unsigned char *p, uint32_t v);
void wal_put_u64(unsigned char *p, uint64_t v);
uint32_t wal_get_u32(const unsigned char *p);
uint64_t wal_get_u64(const unsigned char *p);

/* Writes e at out (WAL_ENTRY_BYTES_MAX bytes of room): the bytes written. */
size_t wal_entry_encode(unsigned char *out, const struct wal_entry *e);
/* Reads an entry from p[0..n): the bytes it took, or 0 when malformed
 * (a length out of range, bytes missing, a word the protocol refuses). */
size_t wal_entry_decode(const unsigned char *p, size_t n, struct wal_entry *e);

/* A whole log record for (seq, e) at out (WAL_RECORD_BYTES_MAX of room):
 * its length in bytes. */
size_t wal_record_encode(unsigned char *out, uint64_t seq, const struct wal_entry *e);

#endif
