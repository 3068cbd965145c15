/* Rule: SCM_RIGHTS over unix sockets (stream and datagram, socketpair and
 * named): a received descriptor is a new one (the lowest free number)
 * for the same object, FD_CLOEXEC only with MSG_CMSG_CLOEXEC; a message
 * in flight keeps its objects alive after the sender closes its copies
 * (a pipe's write end in flight: no end-of-file yet) and gives them back
 * when its receiver closes unread (then EPIPE, end-of-file); a short
 * control buffer gets what fits and MSG_CTRUNC, the rest closed; a stream
 * read takes the bytes before and of the descriptors' piece and stops
 * there; a peek installs copies; a real descriptor (a file) passes too;
 * a bad descriptor is EBADF, an unknown control message or more than 253
 * descriptors EINVAL; SCM_CREDENTIALS with the sender's own ids is
 * accepted (another pid's depends on privilege and on that pid: not
 * compared). */
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/un.h>

#include "conf.h"

/* Sends `n` bytes of `text` with descriptors fds[0..k). */
static ssize_t send_fds(int s, const char *text, size_t n, const int *fds, int k) {
  struct iovec iov = { (void *)text, n };
  char control[CMSG_SPACE(300 * sizeof(int))];
  memset(control, 0, sizeof control);
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  if (k > 0) {
    m.msg_control = control;
    m.msg_controllen = CMSG_SPACE((size_t)k * sizeof(int));
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN((size_t)k * sizeof(int));
    memcpy(CMSG_DATA(c), fds, (size_t)k * sizeof(int));
  }
  return sendmsg(s, &m, 0);
}

/* Receives into buf with room for `room` descriptors; returns the byte
 * count, the descriptors in fds, their count in *k, msg_flags in *flags. */
static ssize_t recv_fds(int s, char *buf, size_t len, int *fds, int room, int *k, int *flags, int how) {
  struct iovec iov = { buf, len };
  char control[CMSG_SPACE(16 * sizeof(int))];
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = room > 0 ? control : NULL;
  m.msg_controllen = room > 0 ? CMSG_SPACE((size_t)room * sizeof(int)) : 0;
  ssize_t r = recvmsg(s, &m, how);
  *k = 0;
  *flags = m.msg_flags;
  if (r < 0) return r;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    memcpy(fds + *k, CMSG_DATA(c), (size_t)n * sizeof(int));
    *k += n;
  }
  if (r >= 0 && (size_t)r < len) buf[r] = '\0';
  return r;
}

/* The lowest free descriptor number now. */
static int lowest_free(void) {
  int d = dup(0);
  close(d);
  return d;
}

static int cloexec(int fd) { return (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0; }

/* Whether the write end of a pipe sees its read end closed (EPIPE). */
static const char *write_end_state(int w) {
  ssize_t r = write(w, "x", 1);
  return r == 1 ? "open" : errno == EPIPE ? "EPIPE" : ename(errno);
}

static const char *read_end_state(int r) {
  char c;
  ssize_t n = read(r, &c, 1);
  return n == 0 ? "eof" : n > 0 ? "data" : errno == EAGAIN ? "EAGAIN" : ename(errno);
}

static void stream_and_dgram(int type, const char *what) {
  int sv[2], fds[16], k, flags;
  char buf[64];
  MUST(socketpair(AF_UNIX, type, 0, sv) == 0);
  /* A pipe's read end and an eventfd with a count of 5. */
  int p[2];
  MUST(pipe(p) == 0);
  int e = eventfd(5, 0);
  int pass[2] = { p[0], e };
  SHOW("send with 2 fds", send_fds(sv[0], "abc", 3, pass, 2));
  close(p[0]);
  close(e);
  int want = lowest_free();
  ssize_t r = recv_fds(sv[1], buf, sizeof buf, fds, 4, &k, &flags, 0);
  printf("%s: recv=%zd '%s' fds=%d lowest=%d ctrunc=%d cloexec=%d\n", what, r, buf, k, fds[0] == want,
         (flags & MSG_CTRUNC) != 0, cloexec(fds[0]));
  MUST(write(p[1], "hi", 2) == 2);
  char two[3] = { 0 };
  printf("%s: the received read end reads '%.*s'\n", what, (int)read(fds[0], two, 2), two);
  uint64_t v = 0;
  printf("%s: the received eventfd reads %zd count=%llu\n", what, read(fds[1], &v, sizeof v), (unsigned long long)v);
  close(fds[0]);
  close(fds[1]);
  printf("%s: closed, its write end: %s\n", what, write_end_state(p[1]));
  close(p[1]);

  /* MSG_CMSG_CLOEXEC; a short control buffer: one fits, the others go. */
  int q1[2], q2[2], q3[2];
  MUST(pipe(q1) == 0 && pipe(q2) == 0 && pipe(q3) == 0);
  int three[3] = { q1[0], q2[0], q3[0] };
  SHOW("send with 3 fds", send_fds(sv[0], "x", 1, three, 3));
  close(q1[0]);
  close(q2[0]);
  close(q3[0]);
  r = recv_fds(sv[1], buf, sizeof buf, fds, 1, &k, &flags, MSG_CMSG_CLOEXEC);
  printf("%s: short control: recv=%zd fds=%d ctrunc=%d cloexec=%d\n", what, r, k, (flags & MSG_CTRUNC) != 0,
         cloexec(fds[0]));
  printf("%s: write ends: kept %s, dropped %s %s\n", what, write_end_state(q1[1]), write_end_state(q2[1]),
         write_end_state(q3[1]));
  close(fds[0]);
  close(q1[1]);
  close(q2[1]);
  close(q3[1]);

  /* No control buffer at all: the descriptors are dropped. */
  int z[2];
  MUST(pipe(z) == 0);
  SHOW("send 1 fd", send_fds(sv[0], "y", 1, &z[0], 1));
  close(z[0]);
  r = recv_fds(sv[1], buf, sizeof buf, fds, 0, &k, &flags, 0);
  printf("%s: no control buffer: recv=%zd fds=%d ctrunc=%d write end %s\n", what, r, k, (flags & MSG_CTRUNC) != 0,
         write_end_state(z[1]));
  close(z[1]);

  /* A write end in flight keeps the pipe open: no end-of-file until the
   * message is received and its descriptor closed. */
  int w[2];
  MUST(pipe2(w, O_NONBLOCK) == 0);
  SHOW("send write end", send_fds(sv[0], "w", 1, &w[1], 1));
  close(w[1]);
  printf("%s: write end in flight, reader: %s\n", what, read_end_state(w[0]));
  r = recv_fds(sv[1], buf, sizeof buf, fds, 1, &k, &flags, 0);
  printf("%s: received it, reader: %s\n", what, read_end_state(w[0]));
  close(fds[0]);
  printf("%s: closed it, reader: %s\n", what, read_end_state(w[0]));
  close(w[0]);

  /* A peek installs copies; the receive its own. */
  int u[2];
  MUST(pipe(u) == 0);
  SHOW("send for peek", send_fds(sv[0], "pk", 2, &u[0], 1));
  close(u[0]);
  r = recv_fds(sv[1], buf, sizeof buf, fds, 1, &k, &flags, MSG_PEEK);
  int peeked = fds[0];
  printf("%s: peek=%zd '%s' fds=%d\n", what, r, buf, k);
  r = recv_fds(sv[1], buf, sizeof buf, fds, 1, &k, &flags, 0);
  printf("%s: then recv=%zd '%s' fds=%d a new one=%d\n", what, r, buf, k, fds[0] != peeked);
  close(peeked);
  printf("%s: the peeked copy closed, write end %s\n", what, write_end_state(u[1]));
  close(fds[0]);
  printf("%s: both closed, write end %s\n", what, write_end_state(u[1]));
  close(u[1]);

  /* Never received: the socket's close gives the references back. */
  int n[2];
  MUST(pipe(n) == 0);
  SHOW("send never received", send_fds(sv[0], "n", 1, &n[0], 1));
  close(n[0]);
  printf("%s: in flight, write end %s\n", what, write_end_state(n[1]));
  close(sv[1]);
  close(sv[0]);
  printf("%s: sockets closed, write end %s\n", what, write_end_state(n[1]));
  close(n[1]);
}

static void errors(void) {
  int sv[2];
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  int bad = 77;
  SHOW("bad fd", send_fds(sv[0], "b", 1, &bad, 1));
  int many[254];
  for (int i = 0; i < 254; i++) many[i] = sv[0];
  SHOW("254 fds", send_fds(sv[0], "m", 1, many, 254));
  SHOW("253 fds", send_fds(sv[0], "m", 1, many, 253));
  int k, flags, fds[16];
  char buf[64];
  ssize_t r = recv_fds(sv[1], buf, sizeof buf, fds, 16, &k, &flags, 0);
  printf("253 fds received: recv=%zd fds=%d ctrunc=%d\n", r, k, (flags & MSG_CTRUNC) != 0);
  for (int i = 0; i < k; i++) close(fds[i]);

  struct iovec iov = { "c", 1 };
  char control[CMSG_SPACE(sizeof(struct ucred))];
  memset(control, 0, sizeof control);
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = 77;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  SHOW("unknown control message", sendmsg(sv[0], &m, 0));
  c->cmsg_type = SCM_CREDENTIALS;
  c->cmsg_len = CMSG_LEN(sizeof(struct ucred));
  struct ucred cred = { getpid(), getuid(), getgid() };
  memcpy(CMSG_DATA(c), &cred, sizeof cred);
  SHOW("own credentials", sendmsg(sv[0], &m, 0));
  close(sv[0]);
  close(sv[1]);
}

/* A stream read stops after the descriptors' piece: "xyz" then "abc" with
 * a descriptor then "def" are two reads, "xyzabc" and "def". */
static void stream_pieces(void) {
  int sv[2], fds[16], k, flags;
  char buf[64];
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  int p[2];
  MUST(pipe(p) == 0);
  SHOW("send xyz", send_fds(sv[0], "xyz", 3, NULL, 0));
  SHOW("send abc+fd", send_fds(sv[0], "abc", 3, &p[0], 1));
  SHOW("send def", send_fds(sv[0], "def", 3, NULL, 0));
  ssize_t r = recv_fds(sv[1], buf, sizeof buf, fds, 4, &k, &flags, 0);
  printf("pieces: first recv=%zd '%s' fds=%d\n", r, buf, k);
  if (k > 0) close(fds[0]);
  r = recv_fds(sv[1], buf, sizeof buf, fds, 4, &k, &flags, 0);
  printf("pieces: second recv=%zd '%s' fds=%d\n", r, buf, k);
  /* A read of part of the piece gets the descriptors; the rest of it
   * comes alone. */
  SHOW("send long+fd", send_fds(sv[0], "0123456789", 10, &p[0], 1));
  r = recv_fds(sv[1], buf, 4, fds, 4, &k, &flags, 0);
  buf[r > 0 ? r : 0] = '\0';
  printf("pieces: part recv=%zd '%s' fds=%d\n", r, buf, k);
  if (k > 0) close(fds[0]);
  r = recv_fds(sv[1], buf, sizeof buf, fds, 4, &k, &flags, 0);
  printf("pieces: rest recv=%zd '%s' fds=%d\n", r, buf, k);
  close(p[0]);
  close(p[1]);
  close(sv[0]);
  close(sv[1]);
}

/* Named sockets: a listener's accepted connection, and a bound datagram
 * socket, by abstract names. */
static socklen_t abstract(struct sockaddr_un *a, const char *what) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "detsim-conf-scm-%s-%d", what, (int)getpid());
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

static void named(void) {
  struct sockaddr_un a;
  socklen_t len = abstract(&a, "stream");
  int l = socket(AF_UNIX, SOCK_STREAM, 0);
  MUST(bind(l, (struct sockaddr *)&a, len) == 0 && listen(l, 2) == 0);
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  MUST(connect(c, (struct sockaddr *)&a, len) == 0);
  int s = accept(l, NULL, NULL);
  int p[2], fds[4], k, flags;
  char buf[64];
  MUST(pipe(p) == 0);
  SHOW("named stream send", send_fds(c, "n", 1, &p[1], 1));
  ssize_t r = recv_fds(s, buf, sizeof buf, fds, 4, &k, &flags, 0);
  MUST(k == 1);
  MUST(write(fds[0], "ok", 2) == 2);
  char two[3] = { 0 };
  printf("named stream: recv=%zd fds=%d the pipe reads %zd '%s'\n", r, k, read(p[0], two, 2), two);
  close(fds[0]);
  close(s);
  close(c);
  close(l);

  len = abstract(&a, "dgram");
  int d = socket(AF_UNIX, SOCK_DGRAM, 0);
  MUST(bind(d, (struct sockaddr *)&a, len) == 0);
  int u = socket(AF_UNIX, SOCK_DGRAM, 0);
  struct iovec iov = { "d", 1 };
  char control[CMSG_SPACE(sizeof(int))];
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_name = &a;
  m.msg_namelen = len;
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = control;
  m.msg_controllen = sizeof control;
  struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &p[0], sizeof(int));
  SHOW("named dgram sendto", sendmsg(u, &m, 0));
  close(p[0]);
  r = recv_fds(d, buf, sizeof buf, fds, 4, &k, &flags, 0);
  MUST(write(p[1], "dg", 2) == 2);
  printf("named dgram: recv=%zd fds=%d the received end reads %zd\n", r, k, k ? read(fds[0], two, 2) : -1);
  if (k) close(fds[0]);
  close(p[1]);
  close(u);
  close(d);
}

/* A real descriptor: a regular file, shared offset and all. */
static void real_file(void) {
  char path[] = "/tmp/detsim-conf-scm-XXXXXX";
  int f = mkstemp(path);
  MUST(f >= 0);
  unlink(path);
  MUST(write(f, "file-bytes", 10) == 10);
  MUST(lseek(f, 5, SEEK_SET) == 5);
  int sv[2], fds[4], k, flags;
  char buf[64];
  MUST(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  SHOW("send a file", send_fds(sv[0], "f", 1, &f, 1));
  close(f);
  int want = lowest_free();
  ssize_t r = recv_fds(sv[1], buf, sizeof buf, fds, 4, &k, &flags, 0);
  char got[16] = { 0 };
  printf("file: recv=%zd fds=%d lowest=%d reads %zd '%s'\n", r, k, k ? fds[0] == want : 0,
         k ? read(fds[0], got, sizeof got - 1) : -1, got);
  if (k) close(fds[0]);
  close(sv[0]);
  close(sv[1]);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  signal(SIGPIPE, SIG_IGN);
  stream_and_dgram(SOCK_STREAM, "stream");
  stream_and_dgram(SOCK_DGRAM, "dgram");
  errors();
  stream_pieces();
  named();
  real_file();
  return 0;
}
