/* Rule: regular files and sockets share one descriptor namespace: numbers
 * are the lowest free ones, as the kernel gives them; a file reads and
 * writes through the kernel while a socket next to it reads and writes
 * through the network; dup shares a socket; close frees the number. */
#include <fcntl.h>

#include "conf.h"

int main(void) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/detsim-conf-fd-%d.txt", (int)getpid());
  int file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  MUST(file >= 0);
  int c, s;
  pair4(&c, &s);
  int file2 = open(path, O_RDONLY);
  printf("numbers_distinct=%d\n", file != c && file != s && file2 != c && file2 != s && file2 != file);
  SHOW("file_write", write(file, "on disk", 7));
  SHOW("sock_write", write(c, "on wire", 7));
  char buf[16] = {0};
  SHOW("sock_read", read_n(s, buf, 7));
  printf("sock_data=%s\n", buf);
  memset(buf, 0, sizeof buf);
  SHOW("file_read", read(file2, buf, sizeof buf));
  printf("file_data=%s\n", buf);
  int d = dup(c);
  printf("dup_ok=%d\n", d >= 0 && d != c);
  SHOW("close_orig", close(c));
  SHOW("write_via_dup", write(d, "dup", 3));
  memset(buf, 0, sizeof buf);
  SHOW("read_dup", read_n(s, buf, 3));
  printf("dup_data=%s\n", buf);
  int lowest = open(path, O_RDONLY); /* takes the number close freed */
  printf("reused_lowest=%d\n", lowest == c);
  SHOW("close_dup", close(d));
  SHOW("read_eof", read(s, buf, sizeof buf));
  SHOW("close_twice", close(d));
  SHOW("read_closed", read(d, buf, 1));
  int d2 = dup2(s, 100);
  printf("dup2=%d\n", d2);
  SHOW("fcntl_dupfd", fcntl(s, F_DUPFD, 200) >= 200);
  close(200);
  close(100);
  close(s);
  close(lowest);
  close(file2);
  close(file);
  unlink(path);
  return 0;
}
