/* A planted bug for the disk's capacity: a log writer that ignores a short
 * write (docs/disk.md "Capacity").
 *
 *   disk_short_log careless|careful
 *
 * Appends 100-byte records (a sequence number and a checksum) to a log in
 * a fresh directory under the working directory (the data directory)
 * until the disk is full (or 50 records), then reads the log back and
 * checks that every record in it is whole.  `careless` takes a write
 * that did not fail for a whole record; `careful` cuts a short one off
 * (ftruncate back to the record's start) and stops.  On a disk whose
 * capacity is no multiple of a record, the careless log ends in a torn
 * record and the check fails; natively both pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detsim.h"

#define REC 100

static uint32_t sum(const unsigned char *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void make(unsigned seq, unsigned char r[REC]) {
  memset(r, 'a' + seq % 26, REC);
  memcpy(r, &seq, 4);
  uint32_t h = sum(r, REC - 4);
  memcpy(r + REC - 4, &h, 4);
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  int careful = strcmp(argv[1], "careful") == 0;
  char dir[64] = "log-XXXXXX", path[128];
  if (!mkdtemp(dir)) return 2;
  snprintf(path, sizeof path, "%s/log", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  unsigned char r[REC];
  unsigned n = 0;
  off_t end = 0;
  for (; n < 50; n++) {
    make(n, r);
    ssize_t w = write(fd, r, REC);
    if (w < 0) {
      if (errno == ENOSPC) break;
      perror("write");
      return 2;
    }
    if (w < REC && careful) {
      ftruncate(fd, end); /* the torn record is not the log's */
      break;
    }
    end += REC; /* careless: the record is taken for written */
  }
  printf("%u records written\n", n);
  off_t size = lseek(fd, 0, SEEK_END);
  int whole = size % REC == 0;
  for (off_t at = 0; whole && at < size; at += REC) {
    if (pread(fd, r, REC, at) != REC) whole = 0;
    uint32_t h;
    memcpy(&h, r + REC - 4, 4);
    if (h != sum(r, REC - 4)) whole = 0;
  }
  printf("log: %lld bytes, %s\n", (long long)size, whole ? "every record whole" : "a torn record");
  /* Nothing left behind for the next run to find on its disk, pass or fail. */
  close(fd);
  unlink(path);
  rmdir(dir);
  DETSIM_CHECK(whole, "every record in the log is whole");
  return whole ? 0 : 1;
}
