/* Pipes and eventfds, simulated within the node.
 *
 * A pipe is one stream (net_stream.c) with no latency and Linux's default
 * capacity; writes of at most PIPE_BUF bytes are atomic (a writer waits for
 * room for all of them).  Reading with no writer left gives 0; writing with
 * no reader left gives EPIPE and SIGPIPE.  An eventfd is a 64-bit counter
 * (EFD_SEMAPHORE reads one at a time).  Neither has a latency: what one
 * thread writes, the next reader sees.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>

#include "core/core.h"
#include "time/time.h"
#include "net/net.h"
#include "world/world.h"

struct net_pipe {
  struct net_stream s;
  struct net_file *rd, *wr;     /* NULL once that end is closed */
  uint32_t ino;                 /* the read end's file id: fstat's inode */
};

struct net_eventfd {
  uint64_t count;
  bool semaphore;
};

#define EVENTFD_MAX 0xfffffffffffffffeull

int net_pipe2(int fds[2], int flags) {
  if (flags & ~(O_NONBLOCK | O_CLOEXEC | O_DIRECT)) return EINVAL;
  if (flags & O_DIRECT) {
    net_unsupported("pipe2(O_DIRECT)", "packet-mode pipes");
    return EINVAL;
  }
  struct net_pipe *p = detsim__net_calloc(1, sizeof *p);
  CHECK(p != NULL);
  net_stream_init(&p->s, DETSIM_NET_PIPE_BYTES, 0);
  struct net_file *r = net_file_new(NET_PIPE_READ, p);
  if (r == NULL) {
    detsim__net_free(p);
    return errno;
  }
  struct net_file *w = net_file_new(NET_PIPE_WRITE, p);
  if (w == NULL) {
    int e = errno;
    net_file_discard(r);
    detsim__net_free(p);
    return e;
  }
  p->rd = r;
  p->wr = w;
  p->ino = r->id;
  r->nonblock = w->nonblock = (flags & O_NONBLOCK) != 0;
  bool cloexec = (flags & O_CLOEXEC) != 0;
  int fr = net_fd_alloc(r, cloexec, 0);
  if (fr < 0) {
    int e = errno;
    net_file_discard(w);
    p->wr = NULL;
    r->refs = 0;
    net_file_release(r);
    return e;
  }
  int fw = net_fd_alloc(w, cloexec, 0);
  if (fw < 0) {
    int e = errno;
    net_file_discard(w);
    p->wr = NULL;
    net_fd_close(fr);
    return e;
  }
  fds[0] = fr;
  fds[1] = fw;
  return 0;
}

void net_pipe_release(struct net_file *f) {
  struct net_pipe *p = f->obj;
  if (f->kind == NET_PIPE_READ) p->rd = NULL;
  else p->wr = NULL;
  if (p->rd == NULL && p->wr == NULL) {
    net_stream_free(&p->s);
    detsim__net_free(p);
    return;
  }
  struct net_file *other = p->rd ? p->rd : p->wr;
  /* The other end may be another process's (a fork, an exec's helper):
   * its waits look again (a reader sees end-of-file, a writer EPIPE). */
  net_wake_file(other);
}

uint32_t net_pipe_poll(struct net_file *f, uint64_t now) {
  struct net_pipe *p = f->obj;
  uint32_t m = 0;
  if (f->kind == NET_PIPE_READ) {
    if (net_stream_avail(&p->s, now) > 0) m |= EPOLLIN | EPOLLRDNORM;
    if (p->wr == NULL) m |= EPOLLHUP;
  } else {
    if (net_stream_space(&p->s) > 0) m |= EPOLLOUT | EPOLLWRNORM;
    if (p->rd == NULL) m |= EPOLLERR;
  }
  return m;
}

uint64_t net_pipe_gen(struct net_file *f) {
  struct net_pipe *p = f->obj;
  return f->kind == NET_PIPE_READ ? p->s.pushed : p->s.reads;
}

struct file_wait { struct net_file *f; uint32_t want; };

static bool file_wait_ready(void *arg) {
  struct file_wait *w = arg;
  return (net_file_poll(w->f, detsim__now_ns()) & w->want) != 0;
}

ssize_t net_pipe_readv(struct net_file *f, const struct iovec *iov, int iovcnt) {
  struct net_pipe *p = f->obj;
  if (f->kind != NET_PIPE_READ) {
    errno = EBADF;
    return -1;
  }
  uint64_t total = net_iov_total(iov, iovcnt);
  if (total == 0) return 0;
  for (;;) {
    uint64_t now = detsim__now_ns();
    if (net_stream_avail(&p->s, now) > 0) {
      uint64_t n = net_stream_read(&p->s, iov, iovcnt, 0, total, now, false);
      if (p->wr) p->wr->changes++;
      return (ssize_t)n;
    }
    if (p->wr == NULL) return 0;
    if (f->nonblock) {
      errno = EAGAIN;
      return -1;
    }
    struct file_wait w = { f, EPOLLIN | EPOLLHUP };
    int wr = net_wait(DETSIM_EV_net_recv, f, file_wait_ready, NULL, &w, DETSIM_NO_DEADLINE);
    if (wr != 0) {
      errno = wr == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
}

struct pipe_room { struct net_pipe *p; uint64_t need; };
static bool pipe_room_ready(void *arg) {
  struct pipe_room *r = arg;
  return r->p->rd == NULL || net_stream_space(&r->p->s) >= r->need;
}

ssize_t net_pipe_writev(struct net_file *f, const struct iovec *iov, int iovcnt, bool nosignal) {
  struct net_pipe *p = f->obj;
  if (f->kind != NET_PIPE_WRITE) {
    errno = EBADF;
    return -1;
  }
  uint64_t total = net_iov_total(iov, iovcnt);
  uint64_t sent = 0;
  for (;;) {
    if (p->rd == NULL) {
      if (sent > 0) return (ssize_t)sent;
      if (!nosignal) net_sigpipe();
      errno = EPIPE;
      return -1;
    }
    if (sent == total) return (ssize_t)sent;
    uint64_t space = net_stream_space(&p->s);
    uint64_t rest = total - sent;
    /* Writes of PIPE_BUF or less go in whole or not at all. */
    uint64_t need = rest <= PIPE_BUF ? rest : 1;
    if (space >= need) {
      uint64_t n = rest < space ? rest : space;
      net_stream_write(&p->s, iov, iovcnt, sent, n, detsim__now_ns());
      sent += n;
      p->rd->changes++;
      continue;
    }
    if (f->nonblock) {
      if (sent > 0) return (ssize_t)sent;
      errno = EAGAIN;
      return -1;
    }
    struct pipe_room r = { p, need };
    int wr = net_wait(DETSIM_EV_net_send, f, pipe_room_ready, NULL, &r, DETSIM_NO_DEADLINE);
    if (wr != 0) {
      if (sent > 0) return (ssize_t)sent;
      errno = wr == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
}

int net_ioctl_pipe(struct net_file *f, unsigned long req, void *arg) {
  if (req == FIONREAD && (f->kind == NET_PIPE_READ || f->kind == NET_PIPE_WRITE)) {
    struct net_pipe *p = f->obj;
    uint64_t n = net_stream_avail(&p->s, detsim__now_ns());
    int x = (int)(n > INT_MAX ? INT_MAX : n);
    if (arg == NULL) return EFAULT;
    memcpy(arg, &x, sizeof x);
    return 0;
  }
  net_unsupported("this ioctl on a pipe, eventfd, timerfd or epoll", "only FIONBIO, FIONREAD, FIOCLEX and FIONCLEX are simulated");
  return ENOTTY;
}

/* ---- eventfd ---- */

int net_eventfd(unsigned initval, int flags) {
  if (flags & ~(EFD_NONBLOCK | EFD_CLOEXEC | EFD_SEMAPHORE)) {
    errno = EINVAL;
    return -1;
  }
  struct net_eventfd *e = detsim__net_calloc(1, sizeof *e);
  CHECK(e != NULL);
  e->count = initval;
  e->semaphore = (flags & EFD_SEMAPHORE) != 0;
  return net_fd_open(NET_EVENTFD, e, (flags & EFD_NONBLOCK) != 0, (flags & EFD_CLOEXEC) != 0, NULL);
}

void net_eventfd_release(struct net_file *f) { detsim__net_free(f->obj); }

uint32_t net_eventfd_poll(struct net_file *f) {
  struct net_eventfd *e = f->obj;
  uint32_t m = 0;
  if (e->count > 0) m |= EPOLLIN | EPOLLRDNORM;
  if (e->count < EVENTFD_MAX) m |= EPOLLOUT | EPOLLWRNORM;
  return m;
}

struct efd_room { struct net_eventfd *e; uint64_t add; };
static bool efd_room_ready(void *arg) {
  struct efd_room *r = arg;
  return EVENTFD_MAX - r->e->count >= r->add;
}

ssize_t net_eventfd_read(struct net_file *f, void *buf, size_t len) {
  struct net_eventfd *e = f->obj;
  if (len < sizeof(uint64_t)) {
    errno = EINVAL;
    return -1;
  }
  if (e->count == 0) {
    if (f->nonblock) {
      errno = EAGAIN;
      return -1;
    }
    struct file_wait w = { f, EPOLLIN };
    int wr = net_wait(DETSIM_EV_net_recv, f, file_wait_ready, NULL, &w, DETSIM_NO_DEADLINE);
    if (wr != 0) {
      errno = wr == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
  uint64_t v = e->semaphore ? 1 : e->count;
  e->count -= v;
  memcpy(buf, &v, sizeof v);
  f->changes++;
  return sizeof v;
}

ssize_t net_eventfd_write(struct net_file *f, const void *buf, size_t len) {
  struct net_eventfd *e = f->obj;
  if (len < sizeof(uint64_t)) {
    errno = EINVAL;
    return -1;
  }
  uint64_t v;
  memcpy(&v, buf, sizeof v);
  if (v == UINT64_MAX) {
    errno = EINVAL;
    return -1;
  }
  if (EVENTFD_MAX - e->count < v) {
    if (f->nonblock) {
      errno = EAGAIN;
      return -1;
    }
    struct efd_room r = { e, v };
    int wr = net_wait(DETSIM_EV_net_send, f, efd_room_ready, NULL, &r, DETSIM_NO_DEADLINE);
    if (wr != 0) {
      errno = wr == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
  e->count += v;
  f->changes++;
  return sizeof v;
}

uint32_t net_pipe_ino(const struct net_file *f) { return ((const struct net_pipe *)f->obj)->ino; }
