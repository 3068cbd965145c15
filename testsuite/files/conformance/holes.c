/* Sizes and holes: ftruncate grows (reads as zeros) and shrinks a file; a
 * pwrite far past the end leaves a hole that SEEK_DATA and SEEK_HOLE find
 * (at 4 KiB granularity here: data at 0 and at 1 MiB); SEEK_DATA past the
 * end is ENXIO; fallocate reserves space growing the size, and with
 * FALLOC_FL_KEEP_SIZE without changing it. */
#include "files_common.h"

#define MIB (1024L * 1024L)

int main(void) {
  files_setup();
  char buf[64];
  int fd = open(at("h"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  show("write 5 bytes", write(fd, "hello", 5));
  show("ftruncate to 10", ftruncate(fd, 10));
  memset(buf, 'x', sizeof buf);
  show("pread 10 at 0", pread(fd, buf, 10, 0));
  printf("bytes 5-9 are zero: %d\n", !buf[5] && !buf[6] && !buf[7] && !buf[8] && !buf[9]);
  show("ftruncate to 3", ftruncate(fd, 3));
  show("size", lseek(fd, 0, SEEK_END));
  show("ftruncate to a negative size", ftruncate(fd, -1));

  show("ftruncate to 0", ftruncate(fd, 0));
  static char page[4096];
  memset(page, 'd', sizeof page);
  show("pwrite 4096 at 0", pwrite(fd, page, sizeof page, 0));
  show("pwrite 4096 at 1 MiB", pwrite(fd, page, sizeof page, MIB));
  show("size", lseek(fd, 0, SEEK_END));
  show("SEEK_DATA from 0", lseek(fd, 0, SEEK_DATA));
  show("SEEK_HOLE from 0", lseek(fd, 0, SEEK_HOLE));
  show("SEEK_DATA from 8192", lseek(fd, 8192, SEEK_DATA));
  show("SEEK_HOLE from 1 MiB", lseek(fd, MIB, SEEK_HOLE));
  show("SEEK_DATA at the end", lseek(fd, MIB + 4096, SEEK_DATA));
  show("SEEK_HOLE past the end", lseek(fd, MIB + 8192, SEEK_HOLE));
  memset(buf, 'x', sizeof buf);
  show("pread in the hole", pread(fd, buf, 16, 65536));
  int zeros = 1;
  for (int i = 0; i < 16; i++) zeros &= buf[i] == 0;
  printf("the hole reads as zeros: %d\n", zeros);
  close(fd);

  fd = open(at("fa"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  show("fallocate 0..8192", fallocate(fd, 0, 0, 8192));
  show("size after fallocate", lseek(fd, 0, SEEK_END));
  show("fallocate KEEP_SIZE 8192..65536", fallocate(fd, FALLOC_FL_KEEP_SIZE, 8192, 65536));
  show("size after KEEP_SIZE", lseek(fd, 0, SEEK_END));
  show("fallocate with a zero length", fallocate(fd, 0, 0, 0));
  show("fsync", fsync(fd));
  close(fd);
  files_teardown();
  return 0;
}
