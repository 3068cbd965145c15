/* The errors every file call must give as Linux does: ENOENT, EEXIST,
 * ENOTEMPTY, EISDIR, ENOTDIR, EBADF, EINVAL. */
#include <sys/uio.h>

#include "files_common.h"

int main(void) {
  files_setup();
  struct stat st;
  char buf[16];
  int fd = open(at("file"), O_RDWR | O_CREAT, 0644);
  close(fd);
  mkdir(at("dir"), 0755);
  mkdir(at("full"), 0755);
  close(open(at("full/x"), O_WRONLY | O_CREAT, 0644));

  show("ENOENT open", open(at("missing"), O_RDONLY));
  show("ENOENT stat", stat(at("missing"), &st));
  show("ENOENT unlink", unlink(at("missing")));
  show("ENOENT rmdir", rmdir(at("missing")));
  show("ENOENT opendir", opendir(at("missing")) ? 0 : -1);
  show("ENOENT mkdir under a missing parent", mkdir(at("missing/sub"), 0755));

  show("EEXIST mkdir of a file", mkdir(at("file"), 0755));
  show("EEXIST mkdir of a directory", mkdir(at("dir"), 0755));
  show("EEXIST link", link(at("file"), at("full/x")));
  show("EEXIST symlink", symlink("anything", at("file")));
  show("EEXIST O_EXCL", open(at("dir"), O_RDONLY | O_CREAT | O_EXCL, 0644));

  show("ENOTEMPTY rmdir", rmdir(at("full")));
  show("ENOTEMPTY rename onto a non-empty directory", rename(at("dir"), at("full")));
  show("rename onto an empty directory", rename(at("full"), at("dir")));

  show("EISDIR open O_RDWR", open(at("dir"), O_RDWR));
  show("EISDIR unlink", unlink(at("dir")));
  show("EISDIR rename a file onto a directory", rename(at("file"), at("dir")));
  fd = open(at("dir"), O_RDONLY);
  show("EISDIR read of a directory", read(fd, buf, sizeof buf));
  close(fd);

  show("ENOTDIR rmdir of a file", rmdir(at("file")));
  show("ENOTDIR a file as a directory", open(at("file/x"), O_RDONLY));
  show("ENOTDIR rename a directory onto a file", rename(at("dir"), at("file")));

  fd = open(at("file"), O_RDONLY);
  close(fd);
  show("EBADF read of a closed descriptor", read(fd, buf, sizeof buf));
  show("EBADF write of a closed descriptor", write(fd, "x", 1));
  show("EBADF fstat", fstat(fd, &st));
  show("EBADF lseek", lseek(fd, 0, SEEK_SET));
  show("EBADF fsync", fsync(fd));
  show("EBADF ftruncate", ftruncate(fd, 0));
  show("EBADF close twice", close(fd));
  fd = open(at("file"), O_RDONLY);
  show("EINVAL ftruncate of a read-only descriptor", ftruncate(fd, 0));
  show("EINVAL lseek whence", lseek(fd, 0, 42));
  close(fd);
  files_teardown();
  return 0;
}
