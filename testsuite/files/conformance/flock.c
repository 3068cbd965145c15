/* flock(2) locks belong to open file descriptions: two opens of one file
 * in one process conflict, a dup shares its original's lock, shared locks
 * share, LOCK_NB fails with EWOULDBLOCK instead of waiting, and a forked
 * child's own open conflicts with the parent's lock until it is released. */
#include <sys/file.h>
#include <sys/wait.h>

#include "files_common.h"

int main(void) {
  files_setup();
  int fd1 = open(at("f"), O_RDWR | O_CREAT, 0644);
  int fd2 = open(at("f"), O_RDWR);
  show("fd1 LOCK_EX", flock(fd1, LOCK_EX));
  show("fd2 LOCK_EX|LOCK_NB", flock(fd2, LOCK_EX | LOCK_NB));
  show("fd2 LOCK_SH|LOCK_NB", flock(fd2, LOCK_SH | LOCK_NB));
  show("fd1 LOCK_EX again (converts, no conflict)", flock(fd1, LOCK_EX | LOCK_NB));

  pid_t child = fork();
  if (child == 0) {
    int cfd = open(at("f"), O_RDWR);
    int rc = flock(cfd, LOCK_EX | LOCK_NB);
    _exit(rc == 0 ? 0 : errno == EWOULDBLOCK ? 11 : 1);
  }
  int st = 0;
  waitpid(child, &st, 0);
  printf("child's LOCK_EX|LOCK_NB while the parent holds it: %s\n",
         WIFEXITED(st) && WEXITSTATUS(st) == 11 ? "EWOULDBLOCK" : "unexpected");

  int d = dup(fd1);
  show("LOCK_UN through a dup of fd1", flock(d, LOCK_UN));
  close(d);
  show("fd2 LOCK_SH|LOCK_NB after the unlock", flock(fd2, LOCK_SH | LOCK_NB));
  show("fd1 LOCK_SH|LOCK_NB (shared with fd2)", flock(fd1, LOCK_SH | LOCK_NB));
  show("fd1 LOCK_EX|LOCK_NB (fd2 shares)", flock(fd1, LOCK_EX | LOCK_NB));

  child = fork();
  if (child == 0) {
    int cfd = open(at("f"), O_RDONLY);
    int rc = flock(cfd, LOCK_SH | LOCK_NB);
    _exit(rc == 0 ? 0 : 1);
  }
  waitpid(child, &st, 0);
  printf("child's LOCK_SH|LOCK_NB beside two shared locks: %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "granted" : "refused");

  close(fd2);
  show("fd1 LOCK_EX|LOCK_NB after closing fd2 (its lock goes)", flock(fd1, LOCK_EX | LOCK_NB));
  show("flock with a bad operation", flock(fd1, 0));
  show("flock of a closed descriptor", flock(fd2, LOCK_SH));
  close(fd1);
  files_teardown();
  return 0;
}
