/* One program on a data directory (DETSIM_OPTIONS=data_dir=DIR):
 *
 *   disk_one DIR
 *
 * Writes, renames and syncs files there and prints what stat says: the
 * size is the kernel's, the mtime the virtual clock's (a function of the
 * seed).  Then two processes take turns on one lock, flock and fcntl
 * F_SETLKW: the one that waits must let the other run (a wait in the
 * kernel would hang the run).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void path(char *out, size_t n, const char *dir, const char *name) { snprintf(out, n, "%s/%s", dir, name); }

static int lock_fcntl(int fd, short type) {
  struct flock l;
  memset(&l, 0, sizeof l);
  l.l_type = type;
  l.l_whence = SEEK_SET;
  return fcntl(fd, F_SETLKW, &l);
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  char a[4096], b[4096], lk[4096];
  path(a, sizeof a, argv[1], "one.tmp");
  path(b, sizeof b, argv[1], "one.dat");
  path(lk, sizeof lk, argv[1], "one.lock");
  int fd = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 3;
  for (int i = 0; i < 10; i++) write(fd, "0123456789abcdef", 16);
  ftruncate(fd, 150);
  fsync(fd);
  close(fd);
  if (rename(a, b) != 0) return 4;
  struct stat st;
  if (stat(b, &st) != 0) return 5;
  printf("size=%lld mtime=%lld.%09ld\n", (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);

  int l = open(lk, O_RDWR | O_CREAT, 0644);
  if (l < 0 || flock(l, LOCK_EX) != 0) return 6;
  pid_t child = fork();
  if (child == 0) {
    int c = open(lk, O_RDWR);
    if (c < 0 || flock(c, LOCK_EX) != 0) _exit(7); /* waits for the parent's */
    printf("child: got the flock\n");
    fflush(stdout);
    flock(c, LOCK_UN);
    if (lock_fcntl(c, F_WRLCK) != 0) _exit(8); /* waits for the parent's record lock */
    printf("child: got the record lock\n");
    fflush(stdout);
    _exit(0);
  }
  usleep(20000);
  printf("parent: releases the flock\n");
  fflush(stdout);
  int p2 = open(lk, O_RDWR);
  if (p2 < 0 || lock_fcntl(p2, F_WRLCK) != 0) return 9;
  flock(l, LOCK_UN);
  usleep(20000);
  printf("parent: releases the record lock\n");
  fflush(stdout);
  close(p2);
  int status;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 10;
  unlink(b);
  unlink(lk);
  return 0;
}
