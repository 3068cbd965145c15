/* Choice mode (fuzz/fuzz.h): the file's bytes, held in memory and taken in
 * order by the scheduler's decisions.  In a world the bytes and the index
 * of the next one are the world's (the launcher loaded the file into its
 * shared header), so every node takes them in the order of the one
 * history. */
#include "fuzz/fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_abi.h"
#include "core/core.h"

bool detsim__choices_on;
static const uint8_t *bytes;
static uint64_t len, own_pos;
static uint64_t *pos = &own_pos;

int detsim__choices_load(const char *path, char *err, size_t errlen) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "DETSIM_OPTIONS: cannot read choices file %s: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "DETSIM_OPTIONS: choices file %s is not a regular file", path);
    close(fd);
    return -1;
  }
  if ((uint64_t)st.st_size > DETSIM_CHOICES_BYTES_MAX) {
    snprintf(err, errlen, "DETSIM_OPTIONS: choices file %s has %lld bytes, more than %u (limit choices_bytes)", path,
             (long long)st.st_size, DETSIM_CHOICES_BYTES_MAX);
    close(fd);
    return -1;
  }
  uint8_t *buf = malloc(st.st_size ? (size_t)st.st_size : 1);
  if (buf == NULL) {
    snprintf(err, errlen, "DETSIM_OPTIONS: choices file %s: out of memory", path);
    close(fd);
    return -1;
  }
  size_t got = 0;
  while (got < (size_t)st.st_size) {
    ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      snprintf(err, errlen, "DETSIM_OPTIONS: reading choices file %s failed: %s", path,
               k < 0 ? strerror(errno) : "it shrank while being read");
      close(fd);
      return -1;
    }
    got += (size_t)k;
  }
  close(fd);
  bytes = buf;
  len = got;
  own_pos = 0;
  detsim__choices_on = true;
  return 0;
}

void detsim__choices_share(const uint8_t *shared_bytes, uint64_t shared_len, uint64_t *shared_pos) {
  bytes = shared_bytes;
  len = shared_len;
  pos = shared_pos;
  detsim__choices_on = true;
}

void detsim__choices_move(uint8_t *shared_bytes, uint64_t *shared_pos) {
  memcpy(shared_bytes, bytes, (size_t)len);
  *shared_pos = *pos;
  /* The bytes were this process's copy of the file (choices_load). */
  if (pos == &own_pos) free((void *)bytes);
  bytes = shared_bytes;
  pos = shared_pos;
}

bool detsim__choices_next(uint8_t *byte) {
  if (*pos >= len) return false;
  *byte = bytes[(*pos)++];
  return true;
}

bool detsim__choices_below(uint64_t n, uint64_t *out) {
  uint8_t hi, lo;
  if (!detsim__choices_on || n <= 1 || !detsim__choices_next(&hi)) return false;
  if (n <= 256) {
    *out = hi % n;
    return true;
  }
  if (!detsim__choices_next(&lo)) lo = 0x80;
  *out = (uint64_t)(((unsigned __int128)((unsigned)hi << 8 | lo) * n) >> 16);
  return true;
}

uint64_t detsim__choices_or_below(struct detsim_rng *rng, uint64_t n) {
  uint64_t v;
  if (__builtin_expect(detsim__choices_on, 0) && detsim__choices_below(n, &v)) return v;
  return detsim__rng_below(rng, n);
}

uint64_t detsim__choices_used(void) { return *pos; }
uint64_t detsim__choices_len(void) { return len; }
