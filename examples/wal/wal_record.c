/* wal_record: encoding and decoding entries and log records (formats in
 * wal_record.h).  Decoding trusts nothing it reads: every length is checked
 * against what is there before a byte is copied. */
#include "wal_record.h"

#include <string.h>

#include "wal_crc32.h"

void wal_put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

void wal_put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

uint32_t wal_get_u32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}

uint64_t wal_get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static size_t put_word(unsigned char *out, const char *w) {
  size_t n = strlen(w);
  out[0] = (unsigned char)n;
  memcpy(out + 1, w, n);
  return 1 + n;
}

size_t wal_entry_encode(unsigned char *out, const struct wal_entry *e) {
  size_t off = 0;
  wal_put_u64(out, e->version);
  off += 8;
  off += put_word(out + off, e->key);
  off += put_word(out + off, e->value);
  return off;
}

/* One length-prefixed word from p[0..n) into w: bytes taken, or 0. */
static size_t get_word(const unsigned char *p, size_t n, char *w) {
  if (n < 1) return 0;
  size_t len = p[0];
  if (len == 0 || len > WAL_WORD_MAX || len > n - 1) return 0;
  memcpy(w, p + 1, len);
  w[len] = '\0';
  return wal_word_ok(w) ? 1 + len : 0;
}

size_t wal_entry_decode(const unsigned char *p, size_t n, struct wal_entry *e) {
  if (n < WAL_ENTRY_BYTES_MIN) return 0;
  e->version = wal_get_u64(p);
  size_t off = 8, k = get_word(p + off, n - off, e->key);
  if (k == 0) return 0;
  off += k;
  k = get_word(p + off, n - off, e->value);
  if (k == 0) return 0;
  return off + k;
}

size_t wal_record_encode(unsigned char *out, uint64_t seq, const struct wal_entry *e) {
  unsigned char *payload = out + WAL_RECORD_HEADER_BYTES;
  wal_put_u64(payload, seq);
  size_t len = 8 + wal_entry_encode(payload + 8, e);
  wal_put_u32(out, (uint32_t)len);
  wal_put_u32(out + 4, wal_crc32(0, payload, len));
  return WAL_RECORD_HEADER_BYTES + len;
}
