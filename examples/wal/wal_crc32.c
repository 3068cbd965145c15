/* wal_crc32: bitwise-table CRC-32 (see wal_crc32.h).  The table is built
 * on first use; the server calls it under its one lock, and the client
 * never does, so no other synchronisation is needed. */
#include "wal_crc32.h"

static uint32_t table[256];
static int table_ready;

static void build_table(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  table_ready = 1;
}

uint32_t wal_crc32(uint32_t crc, const void *p, size_t n) {
  if (!table_ready) build_table();
  const unsigned char *b = p;
  crc = ~crc;
  for (size_t i = 0; i < n; i++) crc = table[(crc ^ b[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}
