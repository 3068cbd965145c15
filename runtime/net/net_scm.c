/* Descriptors in flight over simulated unix sockets (net/net.h).
 *
 * Rules of this file:
 *  - A message's reference to a simulated file is one of the file's
 *    `refs`, as a descriptor's is: the file lives while a message carries
 *    it, whatever the descriptors do.
 *  - Messages live in the world's arena (detsim__net_malloc), as the
 *    sockets that queue them: a forked process receives them too.
 *  - The errors and the control buffer's arithmetic are Linux's
 *    (net/core/scm.c: __scm_send, scm_detach_fds).
 */
#include "net/net.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/core.h"
#include "limits.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "world/world.h"

/* A message's real duplicates sit high in the table, out of the way of the
 * lowest free numbers the program sees (as natively, where a descriptor in
 * flight is in no table). */
static int hidden_dup(int fd) {
  struct rlimit rl;
  int min = 0;
  /* A quarter below the limit, but not so high that the kernel grows a
   * huge table for it. */
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 64)
    min = rl.rlim_cur > 8192 ? 4096 : (int)(rl.rlim_cur - rl.rlim_cur / 4);
  int d = REAL(fcntl)(fd, F_DUPFD_CLOEXEC, min);
  if (d < 0 && min > 0) d = REAL(fcntl)(fd, F_DUPFD_CLOEXEC, 0);
  return d;
}

static void drop_file(struct net_file *f) {
  CHECK_GE(f->refs, 1);
  if (--f->refs == 0 && f->holds == 0) net_file_release(f);
}

void net_scm_release(struct net_scm *m) {
  if (m == NULL) return;
  for (unsigned i = 0; i < m->n; i++) {
    if (m->fds[i].file) drop_file(m->fds[i].file);
    else REAL(close)(m->fds[i].real_fd);
  }
  detsim__net_free(m);
}

void net_scm_release_all(struct net_scm *head) {
  while (head) {
    struct net_scm *next = head->next;
    net_scm_release(head);
    head = next;
  }
}

/* Takes a reference for descriptor fd into m's next entry; 0 or an errno. */
static int take(struct net_scm *m, int fd) {
  struct net_file *f = net_fd_get(fd);
  if (f != NULL) {
    f->refs++;
    m->fds[m->n++] = (struct net_scm_fd){ f, -1 };
    return 0;
  }
  if (REAL(fcntl)(fd, F_GETFD) < 0) return EBADF;
  if (detsim__in_world) {
    static bool told;
    if (!told) {
      told = true;
      detsim__msg("error: sendmsg(SCM_RIGHTS) of a real descriptor (fd %d: not a simulated socket, pipe or other "
                  "object) in a world of several processes is not simulated: its receiver may be another real "
                  "process; the call fails with EOPNOTSUPP", fd);
    }
    return EOPNOTSUPP;
  }
  int d = hidden_dup(fd);
  if (d < 0) return errno;
  m->fds[m->n++] = (struct net_scm_fd){ NULL, d };
  return 0;
}

static int check_credentials(const struct cmsghdr *c) {
  if (c->cmsg_len != CMSG_LEN(sizeof(struct ucred))) return EINVAL;
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(c), sizeof cred);
  /* An unprivileged sender may state only its own ids; root (with
   * CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID) any. */
  if (geteuid() == 0) return 0;
  if (cred.pid != detsim__proc_pid() || cred.uid != getuid() || cred.gid != getgid()) return EPERM;
  return 0;
}

int net_scm_from_msg(const struct msghdr *msg, struct net_scm **out) {
  *out = NULL;
  if (msg->msg_control == NULL || msg->msg_controllen < sizeof(struct cmsghdr)) return 0;
  /* How many descriptors: the message is sized for them. */
  unsigned want = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
    size_t off = (size_t)((char *)c - (char *)msg->msg_control);
    if (c->cmsg_len < sizeof(struct cmsghdr) || c->cmsg_len > msg->msg_controllen - off) return EINVAL;
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_RIGHTS) {
      size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      if (k > DETSIM_NET_SCM_FDS_MAX || want + k > DETSIM_NET_SCM_FDS_MAX) return EINVAL;
      want += (unsigned)k;
    } else if (c->cmsg_type == SCM_CREDENTIALS) {
      int e = check_credentials(c);
      if (e) return e;
    } else {
      return EINVAL;
    }
  }
  if (want == 0) return 0;
  struct net_scm *m = detsim__net_malloc(sizeof *m + want * sizeof m->fds[0]);
  CHECK(m != NULL);
  memset(m, 0, sizeof *m);
  for (struct cmsghdr *c = CMSG_FIRSTHDR((struct msghdr *)msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < k; i++) {
      int fd;
      memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      int e = take(m, fd);
      if (e) {
        net_scm_release(m);
        return e;
      }
    }
  }
  *out = m;
  return 0;
}

/* A new descriptor for entry e in this process, or -1 (no room: EMFILE). */
static int install(const struct net_scm_fd *e, bool cloexec) {
  if (e->file) return net_fd_alloc(e->file, cloexec, 0);
  return REAL(fcntl)(e->real_fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
}

void net_scm_deliver(struct net_scm *m, struct msghdr *msg, size_t cap, int flags) {
  msg->msg_controllen = 0;
  if (m == NULL) return;
  size_t room = cap > sizeof(struct cmsghdr) && msg->msg_control ? (cap - sizeof(struct cmsghdr)) / sizeof(int) : 0;
  unsigned max = room < m->n ? (unsigned)room : m->n;
  unsigned got = 0;
  int fds[DETSIM_NET_SCM_FDS_MAX];
  for (; got < max; got++) {
    int fd = install(&m->fds[got], (flags & MSG_CMSG_CLOEXEC) != 0);
    if (fd < 0) break;
    fds[got] = fd;
  }
  if (got > 0) {
    struct cmsghdr *c = (struct cmsghdr *)msg->msg_control;
    c->cmsg_len = CMSG_LEN(got * sizeof(int));
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    memcpy(CMSG_DATA(c), fds, got * sizeof(int));
    size_t used = CMSG_SPACE(got * sizeof(int));
    msg->msg_controllen = used < cap ? used : cap;
  }
  /* Those without room are closed, as Linux's scm_destroy does. */
  if (got < m->n) msg->msg_flags |= MSG_CTRUNC;
  if (!(flags & MSG_PEEK)) net_scm_release(m);
}
