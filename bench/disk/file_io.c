/* file_io: file I/O throughput, the same source natively and simulated.
 *
 *   file_io write COUNT BYTES    COUNT times: write BYTES at the end, fsync
 *   file_io read MIB             write MIB MiB once, then read it back in
 *                                64 KiB reads, 8 passes
 *
 * Works in a fresh directory "file_io-XXXXXX" under the working directory
 * (so a simulated disk serving it is what is measured) and removes it.
 * Prints what it did and a checksum of what it read, which bench/disk.sh
 * checks, so a run that did nothing cannot pass for a fast one.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK 65536
#define READ_PASSES 8

static char buf[1 << 20];

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: file_io write COUNT BYTES | file_io read MIB\n");
    return 2;
  }
  char dir[] = "file_io-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char path[64];
  snprintf(path, sizeof path, "%s/data", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    perror("open");
    return 1;
  }
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)(i * 31 + 7);
  int rc = 0;
  if (strcmp(argv[1], "write") == 0 && argc == 4) {
    long count = atol(argv[2]), bytes = atol(argv[3]);
    if (count <= 0 || bytes <= 0 || bytes > (long)sizeof buf) return 2;
    for (long i = 0; i < count; i++) {
      if (write(fd, buf, (size_t)bytes) != bytes || fsync(fd) != 0) {
        perror("write+fsync");
        rc = 1;
        break;
      }
    }
    printf("write+fsync: %ld x %ld bytes, size %ld\n", count, bytes, (long)lseek(fd, 0, SEEK_END));
  } else if (strcmp(argv[1], "read") == 0 && argc == 3) {
    long mib = atol(argv[2]);
    if (mib <= 0) return 2;
    for (long i = 0; i < mib; i++)
      if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) rc = 1;
    uint64_t sum = 0, total = 0;
    for (int pass = 0; pass < READ_PASSES; pass++) {
      ssize_t k;
      off_t off = 0;
      while ((k = pread(fd, buf, READ_CHUNK, off)) > 0) {
        for (ssize_t j = 0; j < k; j += 4096) sum += (unsigned char)buf[j];
        off += k;
        total += (uint64_t)k;
      }
    }
    printf("read: %llu bytes, sum %llu\n", (unsigned long long)total, (unsigned long long)sum);
  } else {
    fprintf(stderr, "usage: file_io write COUNT BYTES | file_io read MIB\n");
    rc = 2;
  }
  close(fd);
  unlink(path);
  rmdir(dir);
  return rc;
}
