/* open's flags on regular files: O_CREAT (mode under the umask), O_EXCL,
 * O_TRUNC, O_APPEND (every write at the end, whatever the offset),
 * O_RDONLY/O_WRONLY access, O_DIRECTORY, O_CLOEXEC, and openat. */
#include "files_common.h"

int main(void) {
  files_setup();
  umask(022);
  char buf[256];
  int fd = open(at("a"), O_WRONLY | O_CREAT, 0666);
  expect("O_CREAT makes the file", fd >= 0);
  show("write hello", write(fd, "hello", 5));
  close(fd);
  struct stat st;
  stat(at("a"), &st);
  printf("mode after umask 022: %o regular=%d size=%ld\n", (unsigned)(st.st_mode & 0777), S_ISREG(st.st_mode),
         (long)st.st_size);

  show("O_CREAT|O_EXCL on an existing file", open(at("a"), O_WRONLY | O_CREAT | O_EXCL, 0600));
  fd = open(at("b"), O_WRONLY | O_CREAT | O_EXCL, 0600);
  expect("O_CREAT|O_EXCL on a new name", fd >= 0);
  close(fd);
  show("O_RDONLY of a missing file", open(at("missing"), O_RDONLY));

  fd = open(at("a"), O_WRONLY | O_TRUNC);
  fstat(fd, &st);
  printf("size after O_TRUNC: %ld\n", (long)st.st_size);
  show("write abc", write(fd, "abc", 3));
  close(fd);

  fd = open(at("a"), O_WRONLY | O_APPEND);
  show("O_APPEND write def", write(fd, "def", 3));
  show("lseek to 0", lseek(fd, 0, SEEK_SET));
  show("O_APPEND write XY after seeking to 0", write(fd, "XY", 2));
  show("offset after the append", lseek(fd, 0, SEEK_CUR));
  close(fd);
  printf("content: %s\n", slurp(at("a"), buf, sizeof buf));

  fd = open(at("a"), O_RDONLY);
  show("write on an O_RDONLY descriptor", write(fd, "z", 1));
  close(fd);
  fd = open(at("a"), O_WRONLY);
  show("read on an O_WRONLY descriptor", read(fd, buf, 1));
  show("O_WRONLY without O_TRUNC keeps the size", lseek(fd, 0, SEEK_END));
  close(fd);

  mkdir(at("sub"), 0755);
  show("O_WRONLY of a directory", open(at("sub"), O_WRONLY));
  show("O_DIRECTORY of a regular file", open(at("a"), O_RDONLY | O_DIRECTORY));
  int dfd = open(at("sub"), O_RDONLY | O_DIRECTORY);
  expect("O_DIRECTORY of a directory", dfd >= 0);
  fd = openat(dfd, "inner", O_RDWR | O_CREAT | O_CLOEXEC, 0640);
  expect("openat relative to a directory descriptor", fd >= 0);
  show("FD_CLOEXEC set by O_CLOEXEC", fcntl(fd, F_GETFD) & FD_CLOEXEC);
  show("write through openat", write(fd, "inside", 6));
  close(fd);
  close(dfd);
  printf("sub/inner: %s size=%ld\n", slurp(at("sub/inner"), buf, sizeof buf), file_size(at("sub/inner")));
  show("O_CREAT under a missing directory", open(at("nodir/x"), O_WRONLY | O_CREAT, 0600));
  files_teardown();
  return 0;
}
