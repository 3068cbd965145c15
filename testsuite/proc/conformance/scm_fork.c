/* SCM_RIGHTS between the processes of a run: a parent passes its child a
 * pipe's read end made after the fork (the child had no descriptor for
 * it), and closes its own; the child reads what the parent writes, and
 * passes back an eventfd of its own making, which the parent reads after
 * the child has ended (the object lives on in the parent's descriptor).
 * A message left unread when both processes close the socket gives its
 * pipe end back: the writer sees EPIPE. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
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

static int recv_fd(int s) {
  char control[CMSG_SPACE(sizeof(int))], b;
  struct iovec iov = { &b, 1 };
  struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control };
  if (recvmsg(s, &m, 0) != 1) return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  if (c == NULL || c->cmsg_type != SCM_RIGHTS) return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  signal(SIGPIPE, SIG_IGN);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  pid_t c = fork();
  if (c == 0) {
    close(sv[0]);
    int r = recv_fd(sv[1]);
    char buf[32] = { 0 };
    ssize_t n = read(r, buf, sizeof buf - 1);
    printf("child: got a pipe end=%d read %zd '%s'\n", r >= 0, n, buf);
    close(r);
    int e = eventfd(42, 0);
    send_fd(sv[1], e);
    close(e);
    close(sv[1]);
    _exit(0);
  }
  close(sv[1]);
  int p[2];
  if (pipe(p) != 0) return 2;
  printf("parent: sent=%d\n", send_fd(sv[0], p[0]));
  close(p[0]);
  if (write(p[1], "through", 7) != 7) return 3;
  int st;
  waitpid(c, &st, 0);
  printf("parent: child status=%d, pipe write after the child closed its end: %s\n", WEXITSTATUS(st),
         write(p[1], "x", 1) < 0 ? "EPIPE" : "open");
  close(p[1]);
  int e = recv_fd(sv[0]);
  uint64_t v = 0;
  printf("parent: got the child's eventfd=%d reads %zd value=%llu\n", e >= 0, read(e, &v, sizeof v),
         (unsigned long long)v);
  close(e);

  /* Unread when both ends close: the pipe end goes back. */
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0 || pipe(p) != 0) return 4;
  c = fork();
  if (c == 0) {
    close(sv[0]);
    send_fd(sv[1], p[0]);
    close(p[0]);
    close(p[1]);
    close(sv[1]);
    _exit(0);
  }
  close(p[0]);
  close(sv[1]);
  waitpid(c, &st, 0);
  printf("parent: in flight, write: %s\n", write(p[1], "x", 1) == 1 ? "open" : "EPIPE");
  close(sv[0]);
  printf("parent: socket closed unread, write: %s\n", write(p[1], "x", 1) == 1 ? "open" : "EPIPE");
  return 0;
}
