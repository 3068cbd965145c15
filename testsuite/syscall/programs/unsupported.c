/* Raw calls the simulation does not carry out never reach the kernel:
 * io_uring_setup fails with ENOSYS quietly (as on a kernel without
 * io_uring, so libraries fall back); an fd call the simulation does not
 * know on a simulated socket fails with EBADF and a report naming it; a
 * call the table marks unsupported, and a number it does not know, fail
 * with ENOSYS and a report naming them, once per call. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SHOW(label, expr) \
  do { \
    errno = 0; \
    long r_ = (long)(expr); \
    printf("%s=%ld %s\n", label, r_, r_ < 0 ? strerrorname_np(errno) : "ok"); \
  } while (0)

int main(void) {
  unsigned char params[120] = {0};
  SHOW("io_uring_setup", syscall(SYS_io_uring_setup, 8, params));
  SHOW("io_uring_enter", syscall(SYS_io_uring_enter, 3, 1, 0, 0, NULL, 0));
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct statfs sf;
  SHOW("fstatfs_simulated", syscall(SYS_fstatfs, s, &sf));
  SHOW("fstatfs_simulated_again", syscall(SYS_fstatfs, s, &sf));
  SHOW("fstatfs_real", syscall(SYS_fstatfs, 1, &sf));
  struct stat st;
  SHOW("fstat_simulated", syscall(SYS_fstat, s, &st) == 0 && S_ISSOCK(st.st_mode) ? 0 : -1);
  SHOW("inotify_init1", syscall(SYS_inotify_init1, 0));
  SHOW("unknown_number", syscall(9999, s));
  SHOW("close", syscall(SYS_close, s));
  return 0;
}
