/* A real descriptor (a regular file) in SCM_RIGHTS once the run is a world
 * of several processes: refused with EOPNOTSUPP and an error naming it
 * (its receiver may be another real process); a simulated one still
 * passes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int send_fd(int s, int fd) {
  char control[CMSG_SPACE(sizeof(int))];
  memset(control, 0, sizeof control);
  struct iovec iov = { "f", 1 };
  struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control };
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return (int)sendmsg(s, &m, 0);
}

int main(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  pid_t c = fork();
  if (c == 0) {
    close(sv[0]);
    char b[8];
    while (read(sv[1], b, sizeof b) > 0) {
    }
    _exit(0);
  }
  close(sv[1]);
  char path[] = "/tmp/detsim-scm-real-XXXXXX";
  int f = mkstemp(path);
  unlink(path);
  int r = send_fd(sv[0], f);
  printf("real file: %d %s\n", r, r < 0 && errno == EOPNOTSUPP ? "EOPNOTSUPP" : "?");
  int p[2];
  if (pipe(p) != 0) return 2;
  printf("simulated pipe: %d\n", send_fd(sv[0], p[0]));
  close(sv[0]);
  int st;
  waitpid(c, &st, 0);
  printf("child status=%d\n", WEXITSTATUS(st));
  return 0;
}
