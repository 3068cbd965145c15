/* POSIX record locks (fcntl F_SETLK, F_SETLKW, F_GETLK) between a parent
 * and its forked children: a write lock excludes the other process, F_GETLK
 * names its type, range and owner (by the pid fork returned), read locks
 * share, non-overlapping ranges do not conflict, unlocking lets the other
 * in, a process's locks go when it exits, and F_SETLKW waits for the holder
 * to unlock.  The child reports over a pipe; only the parent prints, so
 * the output does not depend on how the two interleave. */
#include <sys/wait.h>

#include "files_common.h"

static int lock(int fd, int cmd, short type, off_t start, off_t len) {
  struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
  return fcntl(fd, cmd, &fl);
}

/* What F_GETLK says of [start, start+len) for a write lock. */
static void getlk(int fd, off_t start, off_t len, pid_t owner, char *out, size_t cap) {
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
  if (fcntl(fd, F_GETLK, &fl) != 0) {
    snprintf(out, cap, "F_GETLK failed %s", strerrorname_np(errno));
    return;
  }
  const char *t = fl.l_type == F_UNLCK ? "F_UNLCK" : fl.l_type == F_RDLCK ? "F_RDLCK" : "F_WRLCK";
  if (fl.l_type == F_UNLCK) snprintf(out, cap, "%s", t);
  else
    snprintf(out, cap, "%s start=%ld len=%ld owner_is_other=%d", t, (long)fl.l_start, (long)fl.l_len,
             fl.l_pid == owner);
}

static const char *busy(int rc) {
  return rc == 0 ? "granted" : (errno == EAGAIN || errno == EACCES) ? "busy" : strerrorname_np(errno);
}

/* Child and parent take turns: each waits for a byte from the other. */
static int to_child[2], to_parent[2];
static void tell(int fd) {
  if (write(fd, "x", 1) != 1) _exit(90);
}
static void await(int fd) {
  char c;
  if (read(fd, &c, 1) != 1) _exit(91);
}

int main(void) {
  files_setup();
  int fd = open(at("locked"), O_RDWR | O_CREAT, 0644);
  if (ftruncate(fd, 1000) != 0) return 1;
  if (pipe(to_child) != 0 || pipe(to_parent) != 0) return 1;
  int report[2];
  if (pipe(report) != 0) return 1;

  show("parent F_SETLK write [0,100)", lock(fd, F_SETLK, F_WRLCK, 0, 100));
  show("parent F_SETLK read [500,600)", lock(fd, F_SETLK, F_RDLCK, 500, 100));
  pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    int cfd = open(at("locked"), O_RDWR);
    char msg[1024], part[160];
    msg[0] = '\0';
#define NOTE(...) \
  do { \
    snprintf(part, sizeof part, __VA_ARGS__); \
    strncat(msg, part, sizeof msg - strlen(msg) - 1); \
  } while (0)
    getlk(cfd, 10, 10, parent, part, sizeof part);
    strncat(msg, "child F_GETLK [10,20): ", sizeof msg - strlen(msg) - 1);
    strncat(msg, part, sizeof msg - strlen(msg) - 1);
    strncat(msg, "\n", sizeof msg - strlen(msg) - 1);
    NOTE("child F_SETLK write [50,60): %s\n", busy(lock(cfd, F_SETLK, F_WRLCK, 50, 10)));
    NOTE("child F_SETLK write [200,300): %s\n", busy(lock(cfd, F_SETLK, F_WRLCK, 200, 100)));
    NOTE("child F_SETLK read [550,560): %s\n", busy(lock(cfd, F_SETLK, F_RDLCK, 550, 10)));
    NOTE("child F_SETLK write [550,560): %s\n", busy(lock(cfd, F_SETLK, F_WRLCK, 550, 10)));
    tell(to_parent[1]);
    await(to_child[0]); /* the parent unlocked [0,100) */
    char seen[160];
    getlk(cfd, 10, 10, parent, seen, sizeof seen);
    NOTE("child F_GETLK [10,20) after the unlock: %s\n", seen);
    NOTE("child F_SETLKW write [0,100): %s\n", busy(lock(cfd, F_SETLKW, F_WRLCK, 0, 100)));
    if (write(report[1], msg, strlen(msg)) < 0) _exit(92);
    tell(to_parent[1]);
    await(to_child[0]); /* the parent looked at the child's lock */
    _exit(0);
  }
  await(to_parent[0]);
  show("parent F_SETLK write [200,210) (the child holds it)", lock(fd, F_SETLK, F_WRLCK, 200, 10) == 0 ? 0 : -1);
  show("parent F_SETLK unlock [0,100)", lock(fd, F_SETLK, F_UNLCK, 0, 100));
  tell(to_child[1]);
  await(to_parent[0]);
  char part[160];
  getlk(fd, 0, 10, child, part, sizeof part);
  printf("parent F_GETLK [0,10) while the child holds it: %s\n", part);
  show("parent F_SETLK write [0,10) (busy)", lock(fd, F_SETLK, F_WRLCK, 0, 10) == 0 ? 0 : -1);
  tell(to_child[1]);
  int status = 0;
  waitpid(child, &status, 0);
  printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  char msg[1024];
  ssize_t n = read(report[0], msg, sizeof msg - 1);
  msg[n > 0 ? n : 0] = '\0';
  printf("%s", msg);
  getlk(fd, 0, 1000, child, part, sizeof part);
  printf("parent F_GETLK [0,1000) after the child exited: %s\n", part);
  show("parent F_SETLKW write [0,1000)", lock(fd, F_SETLKW, F_WRLCK, 0, 1000));

  /* A contended F_SETLKW: the second child waits until the parent, a while
   * later, marks the file and unlocks; what it reads once it holds the
   * lock shows it waited. */
  if (pwrite(fd, "-", 1, 500) != 1) return 1;
  child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    int cfd = open(at("locked"), O_RDWR);
    char msg[160], mark = '?';
    tell(to_parent[1]);
    int rc = lock(cfd, F_SETLKW, F_WRLCK, 0, 10);
    if (pread(cfd, &mark, 1, 500) != 1) mark = '?';
    snprintf(msg, sizeof msg, "second child F_SETLKW write [0,10): %s, mark seen: %c\n", busy(rc), mark);
    if (write(report[1], msg, strlen(msg)) < 0) _exit(92);
    _exit(0);
  }
  await(to_parent[0]);
  usleep(20000);
  if (pwrite(fd, "R", 1, 500) != 1) return 1;
  show("parent unlock [0,1000) while the second child waits", lock(fd, F_SETLK, F_UNLCK, 0, 1000));
  waitpid(child, &status, 0);
  printf("second child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  n = read(report[0], msg, sizeof msg - 1);
  msg[n > 0 ? n : 0] = '\0';
  printf("%s", msg);
  close(fd);
  files_teardown();
  return 0;
}
