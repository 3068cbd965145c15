/* Reading and writing a regular file: read/write move the offset,
 * pread/pwrite do not; readv/writev scatter and gather; lseek from the
 * start, the current offset and the end; a read at the end returns 0; a
 * short read at the tail; fsync and fdatasync succeed on a written file. */
#include <sys/uio.h>

#include "files_common.h"

int main(void) {
  files_setup();
  char buf[256];
  int fd = open(at("f"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  show("write 0123456789", write(fd, "0123456789", 10));
  show("offset after write", lseek(fd, 0, SEEK_CUR));
  show("pwrite AB at 2", pwrite(fd, "AB", 2, 2));
  show("offset after pwrite (unchanged)", lseek(fd, 0, SEEK_CUR));
  memset(buf, 0, sizeof buf);
  show("pread 4 at 1", pread(fd, buf, 4, 1));
  printf("pread got: %s\n", buf);
  show("offset after pread (unchanged)", lseek(fd, 0, SEEK_CUR));
  show("read at the end", read(fd, buf, sizeof buf));
  show("lseek SEEK_SET 3", lseek(fd, 3, SEEK_SET));
  memset(buf, 0, sizeof buf);
  show("read 4", read(fd, buf, 4));
  printf("read got: %s\n", buf);
  show("lseek SEEK_CUR -2", lseek(fd, -2, SEEK_CUR));
  show("lseek SEEK_END -3", lseek(fd, -3, SEEK_END));
  memset(buf, 0, sizeof buf);
  show("short read of 100 at the tail", read(fd, buf, 100));
  printf("tail: %s\n", buf);
  show("lseek to a negative offset", lseek(fd, -100, SEEK_SET));
  show("pread past the end", pread(fd, buf, 10, 1000));

  lseek(fd, 0, SEEK_END);
  struct iovec out[3] = { { "one,", 4 }, { "two,", 4 }, { "three", 5 } };
  show("writev 3 buffers", writev(fd, out, 3));
  char a[5] = { 0 }, b[9] = { 0 }, c[32] = { 0 };
  struct iovec in[3] = { { a, 4 }, { b, 8 }, { c, sizeof c - 1 } };
  lseek(fd, 8, SEEK_SET);
  show("readv 3 buffers from 8", readv(fd, in, 3));
  printf("readv: [%s] [%s] [%s]\n", a, b, c);
  show("fsync", fsync(fd));
  show("fdatasync", fdatasync(fd));
  close(fd);
  printf("content: %s size=%ld\n", slurp(at("f"), buf, sizeof buf), file_size(at("f")));

  /* A larger write read back in small pieces. */
  fd = open(at("big"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  static char block[65536];
  for (size_t i = 0; i < sizeof block; i++) block[i] = (char)('a' + i % 26);
  long total = 0;
  for (int i = 0; i < 4; i++) total += write(fd, block, sizeof block);
  printf("wrote %ld bytes\n", total);
  lseek(fd, 0, SEEK_SET);
  long got = 0, sum = 0;
  ssize_t k;
  while ((k = read(fd, buf, 100)) > 0) {
    for (ssize_t i = 0; i < k; i++) sum += buf[i];
    got += k;
  }
  printf("read back %ld bytes, byte sum %ld\n", got, sum);
  close(fd);
  files_teardown();
  return 0;
}
