/* Rule: fstat of a socket, a pipe, an eventfd, an epoll instance, a
 * timerfd, a signalfd and /dev/urandom shows the kind of file Linux shows
 * (what libuv's uv_guess_handle and the type of a descriptor received
 * over IPC go by), through every form: fstat, fstatat with AT_EMPTY_PATH,
 * statx, the raw system call; a received descriptor and one dup2'ed onto
 * stdin are sockets still.  Inode numbers are compared, never printed: the
 * two ends of a pipe share one, a dup shares its file's, two sockets have
 * their own, the anonymous files all share the kernel's one. */
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>

#include "conf.h"

static const char *kind(mode_t m) {
  if (S_ISSOCK(m)) return "socket";
  if (S_ISFIFO(m)) return "fifo";
  if (S_ISCHR(m)) return "chr";
  if (S_ISREG(m)) return "reg";
  if ((m & S_IFMT) == 0) return "anon";
  return "other";
}

static struct stat show(const char *label, int fd) {
  struct stat st;
  memset(&st, 0, sizeof st);
  if (fstat(fd, &st) != 0) {
    printf("%s: fstat -1 %s\n", label, ename(errno));
    return st;
  }
  printf("%s: %s perms=%o nlink=%lu size=%ld blksize=%ld owner=%d", label, kind(st.st_mode),
         (unsigned)(st.st_mode & 07777), (unsigned long)st.st_nlink, (long)st.st_size, (long)st.st_blksize,
         st.st_uid == geteuid() && st.st_gid == getegid());
  if (S_ISCHR(st.st_mode)) printf(" rdev=%u:%u", major(st.st_rdev), minor(st.st_rdev));
  printf("\n");
  return st;
}

static int same(const struct stat *a, const struct stat *b) { return a->st_dev == b->st_dev && a->st_ino == b->st_ino; }

static void forms(const char *label, int fd, const struct stat *want) {
  struct stat at, raw;
  int r1 = fstatat(fd, "", &at, AT_EMPTY_PATH);
  long r2 = syscall(SYS_fstat, fd, &raw);
  struct statx sx;
  int r3 = statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx);
  printf("%s: fstatat=%d same=%d raw=%ld same=%d statx=%d %s mask_basic=%d same=%d\n", label, r1, r1 == 0 && same(&at, want)
         && at.st_mode == want->st_mode, r2, r2 == 0 && same(&raw, want), r3, r3 == 0 ? kind(sx.stx_mode) : "-",
         r3 == 0 && (sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS,
         r3 == 0 && sx.stx_ino == want->st_ino && makedev(sx.stx_dev_major, sx.stx_dev_minor) == want->st_dev);
}

static int pass_fd(int over, int fd) {
  char b = 'x';
  struct iovec iov = { &b, 1 };
  char cbuf[CMSG_SPACE(sizeof(int))];
  memset(cbuf, 0, sizeof cbuf);
  struct msghdr m = { 0 };
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = cbuf;
  m.msg_controllen = sizeof cbuf;
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return (int)sendmsg(over, &m, 0);
}

static int receive_fd(int from) {
  char b;
  struct iovec iov = { &b, 1 };
  char cbuf[CMSG_SPACE(sizeof(int))];
  struct msghdr m = { 0 };
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = cbuf;
  m.msg_controllen = sizeof cbuf;
  if (recvmsg(from, &m, 0) != 1) return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  int fd = -1;
  if (c != NULL && c->cmsg_type == SCM_RIGHTS) memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

int main(void) {
  int sv[2];
  SHOW("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  struct stat pair0 = show("unix", sv[0]);
  struct stat pair1 = show("unix_peer", sv[1]);
  int tcp = socket(AF_INET, SOCK_STREAM, 0), udp = socket(AF_INET, SOCK_DGRAM, 0);
  struct stat t = show("tcp", tcp);
  struct stat u = show("udp", udp);
  forms("tcp", tcp, &t);
  printf("own inodes: peers=%d tcp_udp=%d\n", !same(&pair0, &pair1), !same(&t, &u));
  int d = dup(tcp);
  struct stat ds = show("dup", d);
  printf("dup shares: %d\n", same(&ds, &t));

  int p[2];
  SHOW("pipe", pipe(p));
  SHOW("write", (int)write(p[1], "hello", 5));
  struct stat pr = show("pipe_read", p[0]);
  struct stat pw = show("pipe_write", p[1]);
  forms("pipe_read", p[0], &pr);
  printf("pipe ends share: %d\n", same(&pr, &pw));

  sigset_t none;
  sigemptyset(&none);
  int e = eventfd(0, 0), ep = epoll_create1(0), tf = timerfd_create(CLOCK_MONOTONIC, 0), sf = signalfd(-1, &none, 0);
  struct stat es = show("eventfd", e);
  struct stat eps = show("epoll", ep);
  struct stat tfs = show("timerfd", tf);
  struct stat sfs = show("signalfd", sf);
  forms("eventfd", e, &es);
  printf("anonymous share: %d\n", same(&es, &eps) && same(&es, &tfs) && same(&es, &sfs));

  int r = open("/dev/urandom", O_RDONLY);
  show("urandom", r);

  /* A socket received over a unix socket, and one made stdin. */
  SHOW("pass", pass_fd(sv[0], tcp));
  int got = receive_fd(sv[1]);
  struct stat gs = show("received", got);
  printf("received shares: %d\n", same(&gs, &t));
  int saved = dup(0);
  SHOW("dup2", dup2(sv[1], 0));
  show("stdin", 0);
  dup2(saved, 0);

  /* A closed descriptor. */
  close(d);
  show("closed", d);
  return 0;
}
