/* wal_crc32: the CRC-32 (IEEE 802.3, reflected 0xEDB88320, as zlib's
 * crc32()) that guards every log record and the snapshot. */
#ifndef WAL_CRC32_H
#define WAL_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of n bytes at p continuing from crc (0 to start). */
uint32_t wal_crc32(uint32_t crc, const void *p, size_t n);

#endif
