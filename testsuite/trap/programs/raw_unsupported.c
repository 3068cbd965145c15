/* Raw syscall instructions the simulated kernel does not have: the same
 * answers and reports as syscall(SYS_x); a raw exec is refused (under the
 * seccomp filter, with the filter's own message: it would outlive it). */
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>

#include "../raw_asm.h"

int main(void) {
  printf("io_uring_setup=%ld\n", raw_syscall3(SYS_io_uring_setup, 8, 0, 0));
  printf("inotify_init1=%ld\n", raw_syscall3(SYS_inotify_init1, 0, 0, 0));
  printf("inotify_init1_again=%ld\n", raw_syscall3(SYS_inotify_init1, 0, 0, 0));
  printf("unknown=%ld\n", raw_syscall3(9999, 0, 0, 0));
  static char *const argv[] = { "/bin/true", NULL };
  printf("execve=%ld\n", raw_syscall3(SYS_execve, (long)"/bin/true", (long)argv, 0));
  printf("enosys=%d\n", ENOSYS);
  return 0;
}
