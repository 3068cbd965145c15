/* Interceptors: sockets, pipes, eventfds, timerfds, poll/select/epoll, and the
 * descriptor calls (read, write, close, fcntl, ioctl, dup) that reach them.
 *
 * One shape for all of them:
 *  - a call on a real descriptor goes to the kernel unchanged, with no event
 *    and no yield point (regular files, the terminal, stdio);
 *  - a call on a simulated descriptor is a yield point (the event names the
 *    operation), then runs in the simulation while holding the file (a
 *    concurrent close releases it when the call returns), then records its
 *    outcome in the history;
 *  - calls that create descriptors (socket, pipe, eventfd, timerfd,
 *    epoll_create) always create simulated ones: a simulation build never
 *    opens a real socket.
 * The descriptor is looked up again after the yield point: another thread
 * may have closed it meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sched/sched.h"
#include "time/time.h"
#include "machine/machine.h"
#include "disk/disk.h"
#include "world/world.h"
#include "net/net.h"
#include "trace/trace.h"
#include "proc/proc.h"
#include "libc/libc.h"
#include "intercept/intercept.h"
#include "sanitize/sanitize.h"
#include "signal/signal.h"

/* glibc's fortify entry points have no public prototypes. */
ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
                       struct sockaddr *addr, socklen_t *addrlen);
int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                const sigset_t *ss, size_t fdslen);
_Noreturn void __chk_fail(void);

#define PC() (net__pc = (uintptr_t)__builtin_return_address(0))

static uint32_t clamp32(uint64_t x) { return x > UINT32_MAX ? UINT32_MAX : (uint32_t)x; }

/* Enters an operation on simulated descriptor fd: the yield point, then the
 * file again (NULL if it was closed meanwhile), held. */
static struct net_file *enter(enum detsim_event_kind kind, int fd, uint32_t aux) {
  struct net_file *f = net_fd_get(fd);
  net_enter(kind, f, aux);
  f = net_fd_get(fd);
  if (f != NULL) net_file_hold(f);
  return f;
}

/* Records the outcome (result, or -errno) and releases the hold. */
static long leave(struct net_file *f, long r) {
  int e = errno;
  net_result(f, r < 0 ? -e : r);
  if (f != NULL) net_file_put(f);
  errno = e;
  return r;
}

/* For calls that return a new descriptor: the history records the file's
 * id, never the number (numbers depend on what the process inherited). */
static long leave_fd(struct net_file *f, int fd) {
  int e = errno;
  struct net_file *nf = fd >= 0 ? net_fd_get(fd) : NULL;
  net_result(f, fd < 0 ? -e : nf != NULL ? (long)nf->id : 0);
  if (f != NULL) net_file_put(f);
  errno = e;
  return fd;
}

static long fail(int e) {
  errno = e;
  return -1;
}

/* errno-style helper results (0 or an errno) as -1/errno. */
static int as_call(int e) {
  if (e == 0) return 0;
  errno = e;
  return -1;
}

/* ---- creating descriptors ---- */

/* The runtime's own library calls (libunwind validates addresses through a
 * pipe while it takes a backtrace) get real kernel objects, and so do pipes,
 * eventfds and epolls made before the simulation starts (a library's
 * constructor): they are the process's plumbing, not the program's network.
 * Sockets are always simulated. */
static bool plumbing_is_real(void) { return detsim__internal() || !detsim__running(); }

DETSIM_EXPORT int __detsim_socket(int domain, int type, int protocol) {
  PC();
  if (detsim__internal()) return REAL(socket)(domain, type, protocol);
  net_enter(DETSIM_EV_net_socket, NULL, (uint32_t)domain);
  return (int)leave_fd(NULL, net_socket(domain, type, protocol));
}
DETSIM_INTERCEPT_ALIAS(socket)

DETSIM_EXPORT int __detsim_socketpair(int domain, int type, int protocol, int sv[2]) {
  PC();
  net_enter(DETSIM_EV_net_socket, NULL, (uint32_t)domain);
  int r = net_socketpair(domain, type, protocol, sv);
  return (int)leave(NULL, r);
}
DETSIM_INTERCEPT_ALIAS(socketpair)

DETSIM_EXPORT int __detsim_pipe2(int fds[2], int flags) {
  PC();
  /* A sanitizer's pipes to its symbolizer are its own, and real. */
  if (plumbing_is_real() || DETSIM_FROM_SANITIZER()) return REAL(pipe2)(fds, flags);
  net_enter(DETSIM_EV_net_socket, NULL, 0);
  int r = as_call(net_pipe2(fds, flags));
  return (int)leave(NULL, r);
}
DETSIM_INTERCEPT_ALIAS(pipe2)

DETSIM_EXPORT int __detsim_pipe(int fds[2]) {
  PC();
  if (plumbing_is_real() || DETSIM_FROM_SANITIZER()) return REAL(pipe)(fds);
  net_enter(DETSIM_EV_net_socket, NULL, 0);
  int r = as_call(net_pipe2(fds, 0));
  return (int)leave(NULL, r);
}
DETSIM_INTERCEPT_ALIAS(pipe)

DETSIM_EXPORT int __detsim_eventfd(unsigned int initval, int flags) {
  PC();
  if (plumbing_is_real()) return REAL(eventfd)(initval, flags);
  net_enter(DETSIM_EV_net_socket, NULL, 1);
  return (int)leave_fd(NULL, net_eventfd(initval, flags));
}
DETSIM_INTERCEPT_ALIAS(eventfd)

DETSIM_EXPORT int __detsim_timerfd_create(int clockid, int flags) {
  PC();
  if (plumbing_is_real()) return REAL(timerfd_create)(clockid, flags);
  net_enter(DETSIM_EV_net_socket, NULL, 3);
  return (int)leave_fd(NULL, net_timerfd_create(clockid, flags));
}
DETSIM_INTERCEPT_ALIAS(timerfd_create)

DETSIM_EXPORT int __detsim_signalfd(int fd, const sigset_t *mask, int flags) {
  PC();
  if (plumbing_is_real()) return REAL(signalfd)(fd, mask, flags);
  if (mask == NULL) return (int)fail(EFAULT);
  net_enter(DETSIM_EV_net_socket, NULL, 4);
  return (int)leave_fd(NULL, net_signalfd(fd, mask, flags));
}
DETSIM_INTERCEPT_ALIAS(signalfd)

DETSIM_EXPORT int __detsim_epoll_create1(int flags) {
  PC();
  if (plumbing_is_real()) return REAL(epoll_create1)(flags);
  net_enter(DETSIM_EV_net_socket, NULL, 2);
  return (int)leave_fd(NULL, net_epoll_create(flags));
}
DETSIM_INTERCEPT_ALIAS(epoll_create1)

DETSIM_EXPORT int __detsim_epoll_create(int size) {
  PC();
  if (plumbing_is_real()) return REAL(epoll_create)(size);
  if (size <= 0) return (int)fail(EINVAL);
  net_enter(DETSIM_EV_net_socket, NULL, 2);
  return (int)leave_fd(NULL, net_epoll_create(0));
}
DETSIM_INTERCEPT_ALIAS(epoll_create)

/* ---- socket calls (on a real descriptor: the kernel's answer) ---- */

#define SOCK_ENTER(kind, fd, aux, real_call) \
  PC(); \
  if (net_fd_get(fd) == NULL) return real_call; \
  struct net_file *f = enter(kind, fd, aux); \
  if (f == NULL) return real_call;

DETSIM_EXPORT int __detsim_bind(int fd, const struct sockaddr *sa, socklen_t len) {
  SOCK_ENTER(DETSIM_EV_net_bind, fd, 0, REAL(bind)(fd, sa, len));
  int r = f->kind == NET_SOCK ? as_call(net_bind(f, sa, len)) : (int)fail(ENOTSOCK);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(bind)

DETSIM_EXPORT int __detsim_listen(int fd, int backlog) {
  SOCK_ENTER(DETSIM_EV_net_listen, fd, 0, REAL(listen)(fd, backlog));
  int r = f->kind == NET_SOCK ? as_call(net_listen(f, backlog)) : (int)fail(ENOTSOCK);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(listen)

DETSIM_EXPORT int __detsim_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_accept, fd, 0, REAL(accept4)(fd, sa, len, flags));
  int r = f->kind == NET_SOCK ? net_accept(f, sa, len, flags) : (int)fail(ENOTSOCK);
  return (int)leave_fd(f, r);
}
DETSIM_INTERCEPT_ALIAS(accept4)

DETSIM_EXPORT int __detsim_accept(int fd, struct sockaddr *sa, socklen_t *len) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_accept, fd, 0, REAL(accept)(fd, sa, len));
  int r = f->kind == NET_SOCK ? net_accept(f, sa, len, 0) : (int)fail(ENOTSOCK);
  return (int)leave_fd(f, r);
}
DETSIM_INTERCEPT_ALIAS(accept)

DETSIM_EXPORT int __detsim_connect(int fd, const struct sockaddr *sa, socklen_t len) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_connect, fd, 0, REAL(connect)(fd, sa, len));
  int r = f->kind == NET_SOCK ? as_call(net_connect(f, sa, len)) : (int)fail(ENOTSOCK);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(connect)

DETSIM_EXPORT int __detsim_shutdown(int fd, int how) {
  SOCK_ENTER(DETSIM_EV_net_shutdown, fd, (uint32_t)how, REAL(shutdown)(fd, how));
  int r = f->kind == NET_SOCK ? as_call(net_shutdown(f, how)) : (int)fail(ENOTSOCK);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(shutdown)

DETSIM_EXPORT int __detsim_getsockname(int fd, struct sockaddr *sa, socklen_t *len) {
  SOCK_ENTER(DETSIM_EV_net_sockopt, fd, 0, REAL(getsockname)(fd, sa, len));
  int r = f->kind == NET_SOCK ? as_call(net_getsockname(f, sa, len, false)) : (int)fail(ENOTSOCK);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(getsockname)

DETSIM_EXPORT int __detsim_getpeername(int fd, struct sockaddr *sa, socklen_t *len) {
  SOCK_ENTER(DETSIM_EV_net_sockopt, fd, 1, REAL(getpeername)(fd, sa, len));
  int r = f->kind == NET_SOCK ? as_call(net_getsockname(f, sa, len, true)) : (int)fail(ENOTSOCK);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(getpeername)

DETSIM_EXPORT int __detsim_setsockopt(int fd, int level, int name, const void *val, socklen_t len) {
  SOCK_ENTER(DETSIM_EV_net_sockopt, fd, (uint32_t)name, REAL(setsockopt)(fd, level, name, val, len));
  int r = f->kind == NET_SOCK ? as_call(net_setsockopt(f, level, name, val, len)) : (int)fail(ENOTSOCK);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(setsockopt)

DETSIM_EXPORT int __detsim_getsockopt(int fd, int level, int name, void *val, socklen_t *len) {
  SOCK_ENTER(DETSIM_EV_net_sockopt, fd, (uint32_t)name, REAL(getsockopt)(fd, level, name, val, len));
  int r = f->kind == NET_SOCK ? as_call(net_getsockopt(f, level, name, val, len)) : (int)fail(ENOTSOCK);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(getsockopt)

/* ---- data ---- */

static ssize_t sim_send(struct net_file *f, const struct msghdr *msg, int flags, bool is_socket_call) {
  switch (f->kind) {
  case NET_SOCK: return net_sendmsg(f, msg, flags);
  case NET_PIPE_WRITE:
  case NET_PIPE_READ:
    if (is_socket_call) return fail(ENOTSOCK);
    return net_pipe_writev(f, msg->msg_iov, (int)msg->msg_iovlen, false);
  case NET_EVENTFD:
    if (is_socket_call) return fail(ENOTSOCK);
    if (msg->msg_iovlen < 1) return fail(EINVAL);
    return net_eventfd_write(f, msg->msg_iov[0].iov_base, msg->msg_iov[0].iov_len);
  case NET_EPOLL:
  case NET_TIMERFD:
  case NET_SIGNALFD: return fail(is_socket_call ? ENOTSOCK : EINVAL);
  case NET_DEVRANDOM:
    if (is_socket_call) return fail(ENOTSOCK);
    return detsim__devrandom_writev(f, msg->msg_iov, (int)msg->msg_iovlen);
  case NET_PTY_MASTER:
  case NET_PTY_SLAVE:
    if (is_socket_call) return fail(ENOTSOCK);
    return net_pty_writev(f, msg->msg_iov, (int)msg->msg_iovlen);
  case NET_INOTIFY: break; /* never behind a descriptor */
  }
  return fail(EBADF);
}

static ssize_t sim_recv(struct net_file *f, struct msghdr *msg, int flags, bool is_socket_call) {
  switch (f->kind) {
  case NET_SOCK: return net_recvmsg(f, msg, flags);
  case NET_PIPE_READ:
  case NET_PIPE_WRITE:
    if (is_socket_call) return fail(ENOTSOCK);
    return net_pipe_readv(f, msg->msg_iov, (int)msg->msg_iovlen);
  case NET_EVENTFD:
    if (is_socket_call) return fail(ENOTSOCK);
    if (msg->msg_iovlen < 1) return fail(EINVAL);
    return net_eventfd_read(f, msg->msg_iov[0].iov_base, msg->msg_iov[0].iov_len);
  case NET_TIMERFD:
    if (is_socket_call) return fail(ENOTSOCK);
    if (msg->msg_iovlen < 1) return fail(EINVAL);
    return net_timerfd_read(f, msg->msg_iov[0].iov_base, msg->msg_iov[0].iov_len);
  case NET_SIGNALFD:
    if (is_socket_call) return fail(ENOTSOCK);
    if (msg->msg_iovlen < 1) return fail(EINVAL);
    return net_signalfd_read(f, msg->msg_iov[0].iov_base, msg->msg_iov[0].iov_len);
  case NET_EPOLL: return fail(is_socket_call ? ENOTSOCK : EINVAL);
  case NET_DEVRANDOM:
    if (is_socket_call) return fail(ENOTSOCK);
    return detsim__devrandom_readv(f, msg->msg_iov, (int)msg->msg_iovlen);
  case NET_PTY_MASTER:
  case NET_PTY_SLAVE:
    if (is_socket_call) return fail(ENOTSOCK);
    return net_pty_readv(f, msg->msg_iov, (int)msg->msg_iovlen);
  case NET_INOTIFY: break; /* never behind a descriptor */
  }
  return fail(EBADF);
}

static struct msghdr one_iov(struct iovec *iov, void *buf, size_t len) {
  iov->iov_base = buf;
  iov->iov_len = len;
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = iov;
  m.msg_iovlen = 1;
  return m;
}

/* A read of a real descriptor: the kernel's; on the simulated disk it takes
 * the disk's time and may meet a corrupt fault. */
static ssize_t disk_read(int fd, void *buf, size_t len, uintptr_t pc) {
  ssize_t r = REAL(read)(fd, buf, len);
  return detsim__self() != NULL && detsim__disk_fd_tracked(fd) ? detsim__disk_read_done(fd, buf, r, pc) : r;
}

DETSIM_EXPORT ssize_t __detsim_read(int fd, void *buf, size_t len) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_recv, fd, clamp32(len), disk_read(fd, buf, len, net__pc));
  struct iovec iov;
  struct msghdr m = one_iov(&iov, buf, len);
  return leave(f, sim_recv(f, &m, 0, false));
}
DETSIM_INTERCEPT_ALIAS(read)

DETSIM_EXPORT ssize_t __detsim___read_chk(int fd, void *buf, size_t len, size_t buflen) {
  DETSIM_CANCEL_POINT();
  if (len > buflen) __chk_fail();
  SOCK_ENTER(DETSIM_EV_net_recv, fd, clamp32(len), REAL(__read_chk)(fd, buf, len, buflen));
  struct iovec iov;
  struct msghdr m = one_iov(&iov, buf, len);
  return leave(f, sim_recv(f, &m, 0, false));
}
DETSIM_INTERCEPT_ALIAS(__read_chk)

static ssize_t disk_read(int fd, void *buf, size_t len, uintptr_t pc);

/* A write to a real descriptor: the kernel's, and the program's output
 * (trace/trace.h) unless the runtime itself wrote (its own messages). */
static ssize_t real_write_out(int fd, const void *buf, size_t len, uintptr_t pc) {
  ssize_t r;
  if (detsim__self() != NULL && detsim__disk_fd_tracked(fd)) {
    struct iovec one = { (void *)buf, len };
    r = detsim__disk_pwritev(fd, &one, 1, -1, pc);
  } else {
    if (detsim__in_world && !detsim__pc_in_runtime(pc)) detsim__disk_outside_write(fd);
    r = REAL(write)(fd, buf, len);
  }
  if (r > 0 && !detsim__pc_in_runtime(pc)) detsim__output(fd, buf, (size_t)r, pc);
  return r;
}

/* As enter(), for the calls stdio makes while it holds the stream's real
 * lock: the event, but no preemption there (another thread switched in
 * that used the same stream would wait for the lock in the kernel).  A call
 * that must wait (a full pipe, no data yet) still blocks in the simulation. */
static struct net_file *enter_in_stream(enum detsim_event_kind kind, int fd, uint32_t aux) {
  struct net_file *f = net_fd_get(fd);
  detsim_thread *self = detsim__self();
  if (self != NULL && !self->suppress) detsim__event(kind, self, f, net__pc, aux);
  if (f != NULL) net_file_hold(f);
  return f;
}

ssize_t detsim__fd_write(int fd, const void *buf, size_t len, uintptr_t pc) {
  if (net_fd_get(fd) == NULL) {
    ssize_t r;
    if (detsim__self() != NULL && detsim__disk_fd_tracked(fd)) {
      /* A stream's write (pc 0: under its lock) takes the disk's time
       * without a preemption point. */
      struct iovec one = { (void *)buf, len };
      r = detsim__disk_pwritev(fd, &one, 1, -1, pc);
    } else {
      r = REAL(write)(fd, buf, len);
    }
    int e = errno;
    if (r > 0 && !(pc != 0 && detsim__pc_in_runtime(pc))) detsim__output(fd, buf, (size_t)r, pc);
    errno = e;
    return r;
  }
  net__pc = pc ? pc : detsim__program_pc();
  struct net_file *f = pc ? enter(DETSIM_EV_net_send, fd, clamp32(len)) : enter_in_stream(DETSIM_EV_net_send, fd, clamp32(len));
  if (f == NULL) return REAL(write)(fd, buf, len);
  struct iovec iov;
  struct msghdr m = one_iov(&iov, (void *)buf, len);
  return leave(f, sim_send(f, &m, 0, false));
}

ssize_t detsim__fd_read(int fd, void *buf, size_t len, uintptr_t pc) {
  if (net_fd_get(fd) == NULL) return disk_read(fd, buf, len, pc);
  net__pc = pc ? pc : detsim__program_pc();
  struct net_file *f = pc ? enter(DETSIM_EV_net_recv, fd, clamp32(len)) : enter_in_stream(DETSIM_EV_net_recv, fd, clamp32(len));
  if (f == NULL) return REAL(read)(fd, buf, len);
  struct iovec iov;
  struct msghdr m = one_iov(&iov, buf, len);
  return leave(f, sim_recv(f, &m, 0, false));
}

DETSIM_EXPORT ssize_t __detsim_write(int fd, const void *buf, size_t len) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_send, fd, clamp32(len), real_write_out(fd, buf, len, net__pc));
  struct iovec iov;
  struct msghdr m = one_iov(&iov, (void *)buf, len);
  return leave(f, sim_send(f, &m, 0, false));
}
DETSIM_INTERCEPT_ALIAS(write)

DETSIM_EXPORT ssize_t __detsim_readv(int fd, const struct iovec *iov, int iovcnt) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_recv, fd, 0, REAL(readv)(fd, iov, iovcnt));
  if (iovcnt < 0 || iovcnt > IOV_MAX) return leave(f, fail(EINVAL));
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = (struct iovec *)iov;
  m.msg_iovlen = (size_t)iovcnt;
  return leave(f, sim_recv(f, &m, 0, false));
}
DETSIM_INTERCEPT_ALIAS(readv)

static ssize_t real_writev_out(int fd, const struct iovec *iov, int iovcnt, uintptr_t pc) {
  ssize_t r;
  if (detsim__self() != NULL && detsim__disk_fd_tracked(fd)) {
    r = detsim__disk_pwritev(fd, iov, iovcnt, -1, pc);
  } else {
    if (detsim__in_world && !detsim__pc_in_runtime(pc)) detsim__disk_outside_write(fd);
    r = REAL(writev)(fd, iov, iovcnt);
  }
  if (r > 0 && !detsim__pc_in_runtime(pc)) detsim__output_iov(fd, iov, iovcnt, (size_t)r, pc);
  return r;
}

DETSIM_EXPORT ssize_t __detsim_writev(int fd, const struct iovec *iov, int iovcnt) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_send, fd, 0, real_writev_out(fd, iov, iovcnt, net__pc));
  if (iovcnt < 0 || iovcnt > IOV_MAX) return leave(f, fail(EINVAL));
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = (struct iovec *)iov;
  m.msg_iovlen = (size_t)iovcnt;
  return leave(f, sim_send(f, &m, 0, false));
}
DETSIM_INTERCEPT_ALIAS(writev)

/* pwrite and pwritev: a file's bytes are output; sockets, pipes and
 * eventfds are not seekable (ESPIPE, as Linux). */
DETSIM_EXPORT ssize_t __detsim_pwrite(int fd, const void *buf, size_t len, off_t offset) {
  uintptr_t pc = (uintptr_t)__builtin_return_address(0);
  if (net_fd_get(fd) != NULL) return fail(ESPIPE);
  ssize_t r;
  if (detsim__self() != NULL && detsim__disk_fd_tracked(fd)) {
    struct iovec one = { (void *)buf, len };
    r = detsim__disk_pwritev(fd, &one, 1, offset, pc);
  } else {
    if (detsim__in_world && !detsim__pc_in_runtime(pc)) detsim__disk_outside_write(fd);
    r = REAL(pwrite)(fd, buf, len, offset);
  }
  int e = errno;
  if (r > 0 && !detsim__pc_in_runtime(pc)) detsim__output(fd, buf, (size_t)r, pc);
  errno = e;
  return r;
}
DETSIM_INTERCEPT_ALIAS(pwrite)

DETSIM_EXPORT ssize_t __detsim_pwrite64(int fd, const void *buf, size_t len, off64_t offset) {
  _Static_assert(sizeof(off64_t) == sizeof(off_t), "pwrite64 is pwrite on a 64-bit system");
  uintptr_t pc = (uintptr_t)__builtin_return_address(0);
  if (net_fd_get(fd) != NULL) return fail(ESPIPE);
  ssize_t r;
  if (detsim__self() != NULL && detsim__disk_fd_tracked(fd)) {
    struct iovec one = { (void *)buf, len };
    r = detsim__disk_pwritev(fd, &one, 1, offset, pc);
  } else {
    if (detsim__in_world && !detsim__pc_in_runtime(pc)) detsim__disk_outside_write(fd);
    r = REAL(pwrite64)(fd, buf, len, offset);
  }
  int e = errno;
  if (r > 0 && !detsim__pc_in_runtime(pc)) detsim__output(fd, buf, (size_t)r, pc);
  errno = e;
  return r;
}
DETSIM_INTERCEPT_ALIAS(pwrite64)

DETSIM_EXPORT ssize_t __detsim_pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
  uintptr_t pc = (uintptr_t)__builtin_return_address(0);
  if (net_fd_get(fd) != NULL) return fail(ESPIPE);
  ssize_t r;
  if (detsim__self() != NULL && detsim__disk_fd_tracked(fd)) {
    r = offset < 0 ? (errno = EINVAL, -1) : detsim__disk_pwritev(fd, iov, iovcnt, offset, pc);
  } else {
    if (detsim__in_world && !detsim__pc_in_runtime(pc)) detsim__disk_outside_write(fd);
    r = REAL(pwritev)(fd, iov, iovcnt, offset);
  }
  int e = errno;
  if (r > 0 && !detsim__pc_in_runtime(pc)) detsim__output_iov(fd, iov, iovcnt, (size_t)r, pc);
  errno = e;
  return r;
}
DETSIM_INTERCEPT_ALIAS(pwritev)

DETSIM_EXPORT ssize_t __detsim_send(int fd, const void *buf, size_t len, int flags) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_send, fd, clamp32(len), REAL(send)(fd, buf, len, flags));
  struct iovec iov;
  struct msghdr m = one_iov(&iov, (void *)buf, len);
  return leave(f, sim_send(f, &m, flags, true));
}
DETSIM_INTERCEPT_ALIAS(send)

DETSIM_EXPORT ssize_t __detsim_sendto(int fd, const void *buf, size_t len, int flags,
                                      const struct sockaddr *to, socklen_t tolen) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_send, fd, clamp32(len), REAL(sendto)(fd, buf, len, flags, to, tolen));
  struct iovec iov;
  struct msghdr m = one_iov(&iov, (void *)buf, len);
  m.msg_name = (void *)to; /* stream sockets ignore it, as Linux's TCP does */
  m.msg_namelen = to != NULL ? tolen : 0;
  return leave(f, sim_send(f, &m, flags, true));
}
DETSIM_INTERCEPT_ALIAS(sendto)

DETSIM_EXPORT ssize_t __detsim_sendmsg(int fd, const struct msghdr *msg, int flags) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_send, fd, 0, REAL(sendmsg)(fd, msg, flags));
  if (msg == NULL) return leave(f, fail(EFAULT));
  return leave(f, sim_send(f, msg, flags, true));
}
DETSIM_INTERCEPT_ALIAS(sendmsg)

DETSIM_EXPORT ssize_t __detsim_recv(int fd, void *buf, size_t len, int flags) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_recv, fd, clamp32(len), REAL(recv)(fd, buf, len, flags));
  struct iovec iov;
  struct msghdr m = one_iov(&iov, buf, len);
  return leave(f, sim_recv(f, &m, flags, true));
}
DETSIM_INTERCEPT_ALIAS(recv)

DETSIM_EXPORT ssize_t __detsim___recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags) {
  DETSIM_CANCEL_POINT();
  if (len > buflen) __chk_fail();
  SOCK_ENTER(DETSIM_EV_net_recv, fd, clamp32(len), REAL(__recv_chk)(fd, buf, len, buflen, flags));
  struct iovec iov;
  struct msghdr m = one_iov(&iov, buf, len);
  return leave(f, sim_recv(f, &m, flags, true));
}
DETSIM_INTERCEPT_ALIAS(__recv_chk)

static ssize_t sim_recvfrom(struct net_file *f, void *buf, size_t len, int flags,
                            struct sockaddr *from, socklen_t *fromlen) {
  struct iovec iov;
  struct msghdr m = one_iov(&iov, buf, len);
  if (from != NULL && fromlen != NULL) {
    m.msg_name = from;
    m.msg_namelen = *fromlen;
  }
  ssize_t r = sim_recv(f, &m, flags, true);
  /* A stream socket reports no source address (the length is set to 0). */
  if (r >= 0 && from != NULL && fromlen != NULL) *fromlen = m.msg_namelen;
  return r;
}

DETSIM_EXPORT ssize_t __detsim_recvfrom(int fd, void *buf, size_t len, int flags,
                                        struct sockaddr *from, socklen_t *fromlen) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_recv, fd, clamp32(len), REAL(recvfrom)(fd, buf, len, flags, from, fromlen));
  return leave(f, sim_recvfrom(f, buf, len, flags, from, fromlen));
}
DETSIM_INTERCEPT_ALIAS(recvfrom)

DETSIM_EXPORT ssize_t __detsim___recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags,
                                              struct sockaddr *from, socklen_t *fromlen) {
  DETSIM_CANCEL_POINT();
  if (len > buflen) __chk_fail();
  SOCK_ENTER(DETSIM_EV_net_recv, fd, clamp32(len),
             REAL(__recvfrom_chk)(fd, buf, len, buflen, flags, from, fromlen));
  return leave(f, sim_recvfrom(f, buf, len, flags, from, fromlen));
}
DETSIM_INTERCEPT_ALIAS(__recvfrom_chk)

DETSIM_EXPORT ssize_t __detsim_recvmsg(int fd, struct msghdr *msg, int flags) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_recv, fd, 0, REAL(recvmsg)(fd, msg, flags));
  if (msg == NULL) return leave(f, fail(EFAULT));
  return leave(f, sim_recv(f, msg, flags, true));
}
DETSIM_INTERCEPT_ALIAS(recvmsg)

DETSIM_EXPORT int __detsim_eventfd_read(int fd, eventfd_t *value) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_recv, fd, 8, REAL(eventfd_read)(fd, value));
  ssize_t r = f->kind == NET_EVENTFD ? net_eventfd_read(f, value, sizeof *value) : fail(EINVAL);
  return (int)leave(f, r < 0 ? -1 : 0);
}
DETSIM_INTERCEPT_ALIAS(eventfd_read)

DETSIM_EXPORT int __detsim_eventfd_write(int fd, eventfd_t value) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_send, fd, 8, REAL(eventfd_write)(fd, value));
  ssize_t r = f->kind == NET_EVENTFD ? net_eventfd_write(f, &value, sizeof value) : fail(EINVAL);
  return (int)leave(f, r < 0 ? -1 : 0);
}
DETSIM_INTERCEPT_ALIAS(eventfd_write)

DETSIM_EXPORT int __detsim_timerfd_settime(int fd, int flags, const struct itimerspec *value,
                                           struct itimerspec *old) {
  SOCK_ENTER(DETSIM_EV_net_sockopt, fd, (uint32_t)flags, REAL(timerfd_settime)(fd, flags, value, old));
  int r = f->kind == NET_TIMERFD ? as_call(net_timerfd_settime(f, flags, value, old)) : (int)fail(EINVAL);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(timerfd_settime)

DETSIM_EXPORT int __detsim_timerfd_gettime(int fd, struct itimerspec *out) {
  SOCK_ENTER(DETSIM_EV_net_sockopt, fd, 0, REAL(timerfd_gettime)(fd, out));
  int r = f->kind == NET_TIMERFD ? as_call(net_timerfd_gettime(f, out)) : (int)fail(EINVAL);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(timerfd_gettime)

/* Calls that would move bytes between a simulated descriptor and the kernel
 * directly: refused loudly on simulated descriptors. */
/* sendfile to a simulated descriptor: the bytes of a real file, read with
 * pread from the offset (or the file position), go through the simulated
 * write 64 KiB at a time, and the offset or position moves by what was
 * sent, as the kernel's does.  A simulated source is refused loudly. */
#define SENDFILE_CHUNK_BYTES (64 * 1024)

static ssize_t sim_sendfile(struct net_file *out, int in_fd, off_t *offset, size_t count) {
  if (net_fd_get(in_fd) != NULL) {
    net_unsupported("sendfile from a simulated descriptor", "its source must be a regular file; copy with read and write");
    return fail(EINVAL);
  }
  off_t pos = offset != NULL ? *offset : lseek(in_fd, 0, SEEK_CUR);
  if (pos < 0) return fail(offset != NULL ? EINVAL : errno == ESPIPE ? EINVAL : errno);
  size_t cap = count < SENDFILE_CHUNK_BYTES ? count : SENDFILE_CHUNK_BYTES;
  char *buf = malloc(cap ? cap : 1);
  if (buf == NULL) return fail(ENOMEM);
  size_t done = 0;
  int err = 0;
  while (done < count) {
    size_t want = count - done < cap ? count - done : cap;
    ssize_t n = pread(in_fd, buf, want, pos + (off_t)done);
    if (n <= 0) {
      err = n < 0 ? errno : 0;
      break;
    }
    struct iovec iov;
    struct msghdr m = one_iov(&iov, buf, (size_t)n);
    ssize_t sent = sim_send(out, &m, 0, false);
    if (sent < 0) {
      err = errno;
      break;
    }
    done += (size_t)sent;
    if (sent < n) break; /* a non-blocking socket took part of it */
  }
  free(buf);
  if (done == 0 && err != 0) return fail(err);
  if (offset != NULL) *offset = pos + (off_t)done;
  else lseek(in_fd, pos + (off_t)done, SEEK_SET);
  return (ssize_t)done;
}

DETSIM_EXPORT ssize_t __detsim_sendfile(int out_fd, int in_fd, off_t *offset, size_t count) {
  PC();
  struct net_file *o = net_fd_get(out_fd);
  if (o == NULL && net_fd_get(in_fd) == NULL) return REAL(sendfile)(out_fd, in_fd, offset, count);
  if (o == NULL) {
    net_unsupported("sendfile from a simulated descriptor to a real one", "copy with read and write");
    return fail(EINVAL);
  }
  struct net_file *f = enter(DETSIM_EV_net_send, out_fd, clamp32(count));
  if (f == NULL) return fail(EBADF);
  return leave(f, sim_sendfile(f, in_fd, offset, count));
}
DETSIM_INTERCEPT_ALIAS(sendfile)

DETSIM_EXPORT ssize_t __detsim_sendfile64(int out_fd, int in_fd, off64_t *offset, size_t count) {
  _Static_assert(sizeof(off64_t) == sizeof(off_t), "sendfile64 is sendfile on a 64-bit system");
  return __detsim_sendfile(out_fd, in_fd, (off_t *)offset, count);
}
DETSIM_INTERCEPT_ALIAS(sendfile64)

/* Batches of messages, as the kernel's: one sendmsg or recvmsg after the
 * other, a failure after the first ends the batch with what was done (its
 * error is lost, as Linux's is).  At most UIO_MAXIOV messages a call. */
#define MMSG_MAX 1024

DETSIM_EXPORT int __detsim_sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_send, fd, n, REAL(sendmmsg)(fd, v, n, flags));
  if (f->kind != NET_SOCK) return (int)leave(f, fail(ENOTSOCK));
  if (v == NULL && n > 0) return (int)leave(f, fail(EFAULT));
  if (n > MMSG_MAX) n = MMSG_MAX;
  unsigned i = 0;
  for (; i < n; i++) {
    ssize_t r = net_sendmsg(f, &v[i].msg_hdr, flags);
    if (r < 0) {
      if (i == 0) return (int)leave(f, -1);
      break;
    }
    v[i].msg_len = (unsigned)r;
  }
  return (int)leave(f, (long)i);
}
DETSIM_INTERCEPT_ALIAS(sendmmsg)

/* MSG_WAITFORONE: after the first message the rest are taken without
 * waiting.  The timeout is looked at only after each message, as Linux's
 * is (a recvmmsg can wait past it for the first one). */
DETSIM_EXPORT int __detsim_recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags, struct timespec *t) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_recv, fd, n, REAL(recvmmsg)(fd, v, n, flags, t));
  if (f->kind != NET_SOCK) return (int)leave(f, fail(ENOTSOCK));
  if ((v == NULL && n > 0) || (t != NULL && !detsim__timespec_valid(t))) return (int)leave(f, fail(v == NULL ? EFAULT : EINVAL));
  uint64_t deadline = t != NULL ? detsim__deadline_after(t) : DETSIM_NO_DEADLINE;
  if (n > MMSG_MAX) n = MMSG_MAX;
  int each = flags & ~MSG_WAITFORONE;
  unsigned i = 0;
  for (; i < n; i++) {
    ssize_t r = net_recvmsg(f, &v[i].msg_hdr, each);
    if (r < 0) {
      if (i == 0) return (int)leave(f, -1);
      break;
    }
    v[i].msg_len = (unsigned)r;
    if (flags & MSG_WAITFORONE) each |= MSG_DONTWAIT;
    if (detsim__now_ns() >= deadline) {
      i++;
      break;
    }
  }
  return (int)leave(f, (long)i);
}
DETSIM_INTERCEPT_ALIAS(recvmmsg)

/* ---- unix socket files ----
 * A simulated unix socket's path has no file on disk: unlink removes the
 * name from the simulation (and runs for real, for a file of that name),
 * and succeeds as the file's unlink would have. */

DETSIM_EXPORT int __detsim_unlink(const char *path) {
  if (detsim__self() != NULL && detsim__disk_path_tracked(AT_FDCWD, path)) return detsim__disk_unlinkat(AT_FDCWD, path, 0);
  if (detsim__self() == NULL || path == NULL || !net_unix_unlink(path)) return REAL(unlink)(path);
  REAL(unlink)(path);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(unlink)

DETSIM_EXPORT int __detsim_unlinkat(int dirfd, const char *path, int flags) {
  if (detsim__self() != NULL && detsim__disk_path_tracked(dirfd, path)) return detsim__disk_unlinkat(dirfd, path, flags);
  bool from_cwd = path != NULL && (path[0] == '/' || dirfd == AT_FDCWD);
  if (detsim__self() == NULL || !from_cwd || (flags & AT_REMOVEDIR) || !net_unix_unlink(path))
    return REAL(unlinkat)(dirfd, path, flags);
  REAL(unlinkat)(dirfd, path, flags);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(unlinkat)

DETSIM_EXPORT int __detsim_remove(const char *path) {
  if (detsim__self() != NULL && detsim__disk_path_tracked(AT_FDCWD, path)) {
    struct stat st;
    bool dir = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
    return detsim__disk_unlinkat(AT_FDCWD, path, dir ? AT_REMOVEDIR : 0);
  }
  if (detsim__self() == NULL || path == NULL || !net_unix_unlink(path)) return REAL(remove)(path);
  REAL(remove)(path);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(remove)

/* ---- descriptors ---- */

DETSIM_EXPORT int __detsim_close(int fd) {
  DETSIM_CANCEL_POINT();
  PC();
  if (net_fd_get(fd) == NULL) {
    if (net_inotify_any()) net_epoll_forget_real(fd);
    return detsim__disk_on() ? detsim__disk_close(fd) : REAL(close)(fd);
  }
  net_enter(DETSIM_EV_net_close, net_fd_get(fd), 0);
  if (net_fd_get(fd) == NULL) return REAL(close)(fd);
  int r = net_fd_close(fd);
  return (int)leave(NULL, r);
}
DETSIM_INTERCEPT_ALIAS(close)

DETSIM_EXPORT int __detsim_dup(int fd) {
  PC();
  if (net_fd_get(fd) == NULL) return REAL(dup)(fd);
  struct net_file *f = enter(DETSIM_EV_net_sockopt, fd, 0);
  if (f == NULL) return REAL(dup)(fd);
  int r = net_fd_dup(fd, -1, 0, 0, false);
  return (int)leave_fd(f, r);
}
DETSIM_INTERCEPT_ALIAS(dup)

static int sim_dup3(int oldfd, int newfd, int flags, bool is_dup2) {
  if (net_fd_get(oldfd) == NULL) {
    /* A real descriptor over a simulated one: the kernel replaces the
     * placeholder; the simulated descriptor is closed. */
    int r = is_dup2 ? REAL(dup2)(oldfd, newfd) : REAL(dup3)(oldfd, newfd, flags);
    if (r >= 0 && oldfd != newfd && net_fd_get(newfd) != NULL) net_fd_unmap(newfd);
    return r;
  }
  struct net_file *f = enter(DETSIM_EV_net_sockopt, oldfd, 0);
  if (f == NULL) return (int)fail(EBADF);
  int r;
  if (!is_dup2 && (oldfd == newfd || (flags & ~O_CLOEXEC))) r = (int)fail(EINVAL);
  else r = net_fd_dup(oldfd, newfd, flags, 0, true);
  return (int)leave_fd(f, r);
}

/* The standard streams write to and read from descriptors 0, 1 and 2
 * whatever they are (stdio_sim.c): a new descriptor there may change the
 * buffering glibc would have chosen for a stream not used yet. */
static int std_changed(int r, int newfd) {
  if (r >= 0 && newfd >= 0 && newfd <= 2) detsim__stdio_fd_changed(newfd);
  return r;
}

/* A real descriptor replaced by dup2/dup3 is closed: so are its inotify
 * registrations. */
static int real_replaced(int r, int oldfd, int newfd) {
  if (r >= 0 && oldfd != newfd && net_inotify_any()) net_epoll_forget_real(newfd);
  return r;
}

DETSIM_EXPORT int __detsim_dup2(int oldfd, int newfd) {
  PC();
  if (net_fd_get(oldfd) == NULL && net_fd_get(newfd) == NULL)
    return std_changed(real_replaced(REAL(dup2)(oldfd, newfd), oldfd, newfd), newfd);
  return std_changed(sim_dup3(oldfd, newfd, 0, true), newfd);
}
DETSIM_INTERCEPT_ALIAS(dup2)

DETSIM_EXPORT int __detsim_dup3(int oldfd, int newfd, int flags) {
  PC();
  if (net_fd_get(oldfd) == NULL && net_fd_get(newfd) == NULL)
    return std_changed(real_replaced(REAL(dup3)(oldfd, newfd, flags), oldfd, newfd), newfd);
  return std_changed(sim_dup3(oldfd, newfd, flags, false), newfd);
}
DETSIM_INTERCEPT_ALIAS(dup3)

static int sim_fcntl(int fd, struct net_file *f, int cmd, uintptr_t arg) {
  switch (cmd) {
  case F_GETFL: {
    int mode = f->kind == NET_PIPE_READ ? O_RDONLY : f->kind == NET_PIPE_WRITE ? O_WRONLY
             : f->kind == NET_DEVRANDOM ? detsim__devrandom_accmode(f) : O_RDWR;
    return mode | (f->nonblock ? O_NONBLOCK : 0);
  }
  case F_SETFL:
    f->nonblock = ((int)arg & O_NONBLOCK) != 0;
    f->changes++;
    return 0;
  case F_GETFD: return net_fd_cloexec(fd) ? FD_CLOEXEC : 0;
  case F_SETFD: net_fd_set_cloexec(fd, ((int)arg & FD_CLOEXEC) != 0); return 0;
  case F_DUPFD:
  case F_DUPFD_CLOEXEC:
    if ((int)arg < 0) return (int)fail(EINVAL);
    return net_fd_dup(fd, -1, cmd == F_DUPFD_CLOEXEC ? O_CLOEXEC : 0, (int)arg, false);
  case F_GETPIPE_SZ:
  case F_SETPIPE_SZ:
    if (f->kind != NET_PIPE_READ && f->kind != NET_PIPE_WRITE) return (int)fail(EBADF);
    return (int)DETSIM_NET_PIPE_BYTES;
  case F_GETOWN: return f->owner;
  case F_SETOWN:
    /* The owner gets SIGURG for urgent data (net_oob.c); the simulation
     * signals only its own process, so another is refused by name. */
    if ((int)arg != 0 && (int)arg != detsim__proc_pid() && (int)arg != -detsim__proc_pgid()) {
      net_unsupported("F_SETOWN naming another process or group",
                      "a simulated descriptor's owner is this process (getpid()) or its group (-getpgrp())");
      return (int)fail(EINVAL);
    }
    f->owner = (int)arg;
    return 0;
  default:
    net_unsupported("this fcntl command on a simulated descriptor",
                    "only F_GETFL, F_SETFL, F_GETFD, F_SETFD, F_DUPFD(_CLOEXEC), F_GETOWN, F_SETOWN and "
                    "F_GET/SETPIPE_SZ are simulated");
    return (int)fail(EINVAL);
  }
}

/* A real descriptor's fcntl: F_GETLK names a lock's holder by its kernel
 * pid, which the program must see as the world's (its fork() returned the
 * virtual one). */
static int real_fcntl_done(int r, int cmd, uintptr_t arg) {
  if (r == 0 && cmd == F_GETLK) {
    struct flock *fl = (struct flock *)arg;
    if (fl->l_type != F_UNLCK) fl->l_pid = detsim__proc_vpid_of_kernel(fl->l_pid);
  }
  return r;
}

/* F_SETLKW (and F_OFD_SETLKW) on a real file, inside the simulation: the
 * kernel's wait would block the whole world (the holder, another process of
 * it, could never run to release the lock), so it is the disk's lock wait
 * (runtime/disk/): non-blocking tries, a simulated wait between them. */
static int real_fcntl(int fd, int cmd, uintptr_t arg) {
  if ((cmd == F_SETLKW || cmd == F_OFD_SETLKW) && detsim__self() != NULL)
    return detsim__disk_lock_wait(fd, cmd, (void *)arg, false);
  return real_fcntl_done(REAL(fcntl)(fd, cmd, arg), cmd, arg);
}

DETSIM_EXPORT int __detsim_fcntl(int fd, int cmd, ...) {
  PC();
  va_list ap;
  va_start(ap, cmd);
  uintptr_t arg = va_arg(ap, uintptr_t);
  va_end(ap);
  if (net_fd_get(fd) == NULL) return real_fcntl(fd, cmd, arg);
  struct net_file *f = enter(DETSIM_EV_net_sockopt, fd, (uint32_t)cmd);
  if (f == NULL) return REAL(fcntl)(fd, cmd, arg);
  int r = sim_fcntl(fd, f, cmd, arg);
  return (int)(cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC ? leave_fd(f, r) : leave(f, r));
}
DETSIM_INTERCEPT_ALIAS(fcntl)

DETSIM_EXPORT int __detsim_fcntl64(int fd, int cmd, ...) {
  PC();
  va_list ap;
  va_start(ap, cmd);
  uintptr_t arg = va_arg(ap, uintptr_t);
  va_end(ap);
  if (net_fd_get(fd) == NULL) return real_fcntl(fd, cmd, arg);
  struct net_file *f = enter(DETSIM_EV_net_sockopt, fd, (uint32_t)cmd);
  if (f == NULL) return REAL(fcntl64)(fd, cmd, arg);
  int r = sim_fcntl(fd, f, cmd, arg);
  return (int)(cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC ? leave_fd(f, r) : leave(f, r));
}
DETSIM_INTERCEPT_ALIAS(fcntl64)

DETSIM_EXPORT int __detsim_ioctl(int fd, unsigned long req, ...) {
  PC();
  va_list ap;
  va_start(ap, req);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  if (net_fd_get(fd) == NULL) return REAL(ioctl)(fd, req, arg);
  struct net_file *f = enter(DETSIM_EV_net_sockopt, fd, (uint32_t)req);
  if (f == NULL) return REAL(ioctl)(fd, req, arg);
  int r;
  if (req == FIONBIO) {
    if (arg == NULL) r = (int)fail(EFAULT);
    else {
      int on;
      memcpy(&on, arg, sizeof on);
      f->nonblock = on != 0;
      f->changes++;
      r = 0;
    }
  } else if (req == FIOCLEX || req == FIONCLEX) {
    net_fd_set_cloexec(fd, req == FIOCLEX);
    r = 0;
  } else if (f->kind == NET_SOCK) {
    r = as_call(net_ioctl_sock(f, req, arg));
  } else if (net_pty_is(f)) {
    r = as_call(net_pty_ioctl(f, req, arg));
  } else {
    r = as_call(net_ioctl_pipe(f, req, arg));
  }
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(ioctl)

/* ---- fstat and its forms on a simulated descriptor (net_stat.c) ---- */

/* 1 when fd is simulated and *st was filled (an event of the history),
 * 0 for a real descriptor (the caller asks the kernel). */
static int sim_fstat(int fd, struct stat *st) {
  if (net_fd_get(fd) == NULL) return 0;
  struct net_file *f = enter(DETSIM_EV_net_sockopt, fd, 0);
  if (f == NULL) return 0; /* closed meanwhile: the kernel's EBADF */
  if (st == NULL) {
    leave(f, fail(EFAULT));
    return -1;
  }
  net_fstat(f, st);
  leave(f, 0);
  return 1;
}

DETSIM_EXPORT int __detsim_fstat(int fd, struct stat *st) {
  PC();
  int r = sim_fstat(fd, st);
  return r == 0 ? REAL(fstat)(fd, st) : r < 0 ? -1 : 0;
}
DETSIM_INTERCEPT_ALIAS(fstat)

DETSIM_EXPORT int __detsim_fstat64(int fd, struct stat64 *st) {
  PC();
  _Static_assert(sizeof(struct stat64) == sizeof(struct stat), "x86_64: struct stat64 is struct stat");
  int r = sim_fstat(fd, (struct stat *)st);
  return r == 0 ? REAL(fstat64)(fd, st) : r < 0 ? -1 : 0;
}
DETSIM_INTERCEPT_ALIAS(fstat64)

/* fstatat(fd, "", st, AT_EMPTY_PATH) is fstat(fd); every other form names
 * a path, the kernel's. */
static bool empty_path_of_fd(int dirfd, const char *path, int flags) {
  return (flags & AT_EMPTY_PATH) && path != NULL && path[0] == '\0' && dirfd >= 0 && net_fd_get(dirfd) != NULL;
}

DETSIM_EXPORT int __detsim_fstatat(int dirfd, const char *path, struct stat *st, int flags) {
  PC();
  if (empty_path_of_fd(dirfd, path, flags)) {
    int r = sim_fstat(dirfd, st);
    if (r != 0) return r < 0 ? -1 : 0;
  }
  return REAL(fstatat)(dirfd, path, st, flags);
}
DETSIM_INTERCEPT_ALIAS(fstatat)

DETSIM_EXPORT int __detsim_fstatat64(int dirfd, const char *path, struct stat64 *st, int flags) {
  PC();
  if (empty_path_of_fd(dirfd, path, flags)) {
    int r = sim_fstat(dirfd, (struct stat *)st);
    if (r != 0) return r < 0 ? -1 : 0;
  }
  return REAL(fstatat64)(dirfd, path, st, flags);
}
DETSIM_INTERCEPT_ALIAS(fstatat64)

/* statx(fd, "", AT_EMPTY_PATH, mask, stx): the same answer as fstat, in
 * statx's form (every basic field valid, as Linux fills them for these
 * files; no birth time). */
DETSIM_EXPORT int __detsim_statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx) {
  PC();
  if (empty_path_of_fd(dirfd, path, flags)) {
    struct stat st;
    int r = sim_fstat(dirfd, &st);
    if (r < 0) return -1;
    if (r > 0) {
      if (stx == NULL) return (int)fail(EFAULT);
      (void)mask;
      memset(stx, 0, sizeof *stx);
      stx->stx_mask = STATX_BASIC_STATS;
      stx->stx_blksize = (uint32_t)st.st_blksize;
      stx->stx_nlink = (uint32_t)st.st_nlink;
      stx->stx_uid = st.st_uid;
      stx->stx_gid = st.st_gid;
      stx->stx_mode = (uint16_t)st.st_mode;
      stx->stx_ino = st.st_ino;
      stx->stx_size = (uint64_t)st.st_size;
      stx->stx_blocks = (uint64_t)st.st_blocks;
      stx->stx_atime.tv_sec = st.st_atim.tv_sec;
      stx->stx_atime.tv_nsec = (uint32_t)st.st_atim.tv_nsec;
      stx->stx_mtime = stx->stx_ctime = stx->stx_atime;
      stx->stx_rdev_major = major(st.st_rdev);
      stx->stx_rdev_minor = minor(st.st_rdev);
      stx->stx_dev_major = major(st.st_dev);
      stx->stx_dev_minor = minor(st.st_dev);
      return 0;
    }
  }
  return REAL(statx)(dirfd, path, flags, mask, stx);
}
DETSIM_INTERCEPT_ALIAS(statx)

/* glibc's sockatmark is an ioctl no interposition sees. */
DETSIM_EXPORT int __detsim_sockatmark(int fd) {
  SOCK_ENTER(DETSIM_EV_net_sockopt, fd, SIOCATMARK, REAL(sockatmark)(fd));
  int at = 0;
  int r = f->kind == NET_SOCK ? as_call(net_ioctl_sock(f, SIOCATMARK, &at)) : (int)fail(ENOTTY);
  return (int)leave(f, r < 0 ? r : at);
}
DETSIM_INTERCEPT_ALIAS(sockatmark)

/* ---- readiness ---- */

static uint64_t deadline_ms(int timeout_ms) {
  if (timeout_ms < 0) return DETSIM_NO_DEADLINE;
  return detsim__deadline_after_ns((uint64_t)timeout_ms * 1000000ull);
}

static uint64_t deadline_ts(const struct timespec *ts) {
  if (ts == NULL) return DETSIM_NO_DEADLINE;
  return detsim__deadline_after(ts);
}

/* A poll set waits in the simulation when it holds a simulated descriptor,
 * or none at all (a sleep), from a simulated thread. */
static bool poll_simulated(struct pollfd *fds, nfds_t nfds) {
  if (detsim__self() == NULL) return false;
  return nfds == 0 || net_poll_has_sim(fds, nfds);
}

static int sim_poll(struct pollfd *fds, nfds_t nfds, uint64_t deadline) {
  net_enter(DETSIM_EV_net_poll, NULL, clamp32(nfds));
  int r = net_poll(fds, nfds, deadline);
  return (int)leave(NULL, r);
}

DETSIM_EXPORT int __detsim_poll(struct pollfd *fds, nfds_t nfds, int timeout) {
  DETSIM_CANCEL_POINT();
  PC();
  if (!poll_simulated(fds, nfds)) return REAL(poll)(fds, nfds, timeout);
  return sim_poll(fds, nfds, deadline_ms(timeout));
}
DETSIM_INTERCEPT_ALIAS(poll)

DETSIM_EXPORT int __detsim___poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen) {
  DETSIM_CANCEL_POINT();
  PC();
  if (fdslen / sizeof *fds < nfds) __chk_fail();
  if (!poll_simulated(fds, nfds)) return REAL(__poll_chk)(fds, nfds, timeout, fdslen);
  return sim_poll(fds, nfds, deadline_ms(timeout));
}
DETSIM_INTERCEPT_ALIAS(__poll_chk)

DETSIM_EXPORT int __detsim_ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                                 const sigset_t *sigmask) {
  DETSIM_CANCEL_POINT();
  PC();
  if (!poll_simulated(fds, nfds)) return REAL(ppoll)(fds, nfds, timeout, sigmask);
  if (timeout != NULL && !detsim__timespec_valid(timeout)) return (int)fail(EINVAL);
  uint64_t saved = detsim__sig_mask_enter(sigmask);
  int r = sim_poll(fds, nfds, deadline_ts(timeout));
  detsim__sig_mask_leave(saved);
  return r;
}
DETSIM_INTERCEPT_ALIAS(ppoll)

DETSIM_EXPORT int __detsim___ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                                       const sigset_t *sigmask, size_t fdslen) {
  DETSIM_CANCEL_POINT();
  PC();
  if (fdslen / sizeof *fds < nfds) __chk_fail();
  if (!poll_simulated(fds, nfds)) return REAL(__ppoll_chk)(fds, nfds, timeout, sigmask, fdslen);
  if (timeout != NULL && !detsim__timespec_valid(timeout)) return (int)fail(EINVAL);
  uint64_t saved = detsim__sig_mask_enter(sigmask);
  int r = sim_poll(fds, nfds, deadline_ts(timeout));
  detsim__sig_mask_leave(saved);
  return r;
}
DETSIM_INTERCEPT_ALIAS(__ppoll_chk)

static bool select_simulated(int nfds, fd_set *r, fd_set *w, fd_set *e) {
  if (detsim__self() == NULL) return false;
  if (r == NULL && w == NULL && e == NULL) return true; /* a sleep */
  return net_select_has_sim(nfds, r, w, e);
}

static int sim_select(int nfds, fd_set *r, fd_set *w, fd_set *e, uint64_t deadline) {
  net_enter(DETSIM_EV_net_poll, NULL, 0); /* nfds is a descriptor number: not in the history */
  int n = net_select(nfds, r, w, e, deadline);
  return (int)leave(NULL, n);
}

DETSIM_EXPORT int __detsim_select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv) {
  DETSIM_CANCEL_POINT();
  PC();
  if (!select_simulated(nfds, r, w, e)) return REAL(select)(nfds, r, w, e, tv);
  uint64_t deadline = DETSIM_NO_DEADLINE;
  if (tv != NULL) {
    if (tv->tv_sec < 0 || tv->tv_usec < 0) return (int)fail(EINVAL);
    /* Linux takes microseconds past a second as more seconds. */
    struct timespec rel = { tv->tv_sec + tv->tv_usec / 1000000, (long)(tv->tv_usec % 1000000) * 1000L };
    deadline = detsim__deadline_after(&rel);
  }
  int n = sim_select(nfds, r, w, e, deadline);
  if (tv != NULL && n >= 0) {
    /* Linux writes back the time left (on the node's clock). */
    uint64_t now = detsim__now_ns();
    uint64_t left = deadline > now ? detsim__clock_local_ns(deadline) - detsim__clock_local_ns(now) : 0;
    tv->tv_sec = (time_t)(left / 1000000000ull);
    tv->tv_usec = (suseconds_t)(left % 1000000000ull / 1000);
  }
  return n;
}
DETSIM_INTERCEPT_ALIAS(select)

DETSIM_EXPORT int __detsim_pselect(int nfds, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
                                   const sigset_t *sigmask) {
  DETSIM_CANCEL_POINT();
  PC();
  if (!select_simulated(nfds, r, w, e)) return REAL(pselect)(nfds, r, w, e, ts, sigmask);
  if (ts != NULL && !detsim__timespec_valid(ts)) return (int)fail(EINVAL);
  uint64_t saved = detsim__sig_mask_enter(sigmask);
  int n = sim_select(nfds, r, w, e, deadline_ts(ts));
  detsim__sig_mask_leave(saved);
  return n;
}
DETSIM_INTERCEPT_ALIAS(pselect)

/* ---- epoll ---- */

DETSIM_EXPORT int __detsim_epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev) {
  SOCK_ENTER(DETSIM_EV_net_epoll_ctl, epfd, (uint32_t)op, REAL(epoll_ctl)(epfd, op, fd, ev));
  int r = f->kind == NET_EPOLL ? as_call(net_epoll_ctl(f, op, fd, ev)) : (int)fail(EINVAL);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(epoll_ctl)

static int sim_epoll_wait(struct net_file *f, struct epoll_event *ev, int maxevents, uint64_t deadline) {
  int r = f->kind == NET_EPOLL ? net_epoll_wait(f, ev, maxevents, deadline) : (int)fail(EINVAL);
  return (int)leave(f, r);
}

DETSIM_EXPORT int __detsim_epoll_wait(int epfd, struct epoll_event *ev, int maxevents, int timeout) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_epoll_wait, epfd, (uint32_t)maxevents, REAL(epoll_wait)(epfd, ev, maxevents, timeout));
  return sim_epoll_wait(f, ev, maxevents, deadline_ms(timeout));
}
DETSIM_INTERCEPT_ALIAS(epoll_wait)

DETSIM_EXPORT int __detsim_epoll_pwait(int epfd, struct epoll_event *ev, int maxevents, int timeout,
                                       const sigset_t *sigmask) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_epoll_wait, epfd, (uint32_t)maxevents,
             REAL(epoll_pwait)(epfd, ev, maxevents, timeout, sigmask));
  uint64_t saved = detsim__sig_mask_enter(sigmask);
  int r = sim_epoll_wait(f, ev, maxevents, deadline_ms(timeout));
  detsim__sig_mask_leave(saved);
  return r;
}
DETSIM_INTERCEPT_ALIAS(epoll_pwait)

DETSIM_EXPORT int __detsim_epoll_pwait2(int epfd, struct epoll_event *ev, int maxevents,
                                        const struct timespec *timeout, const sigset_t *sigmask) {
  DETSIM_CANCEL_POINT();
  SOCK_ENTER(DETSIM_EV_net_epoll_wait, epfd, (uint32_t)maxevents,
             REAL(epoll_pwait2)(epfd, ev, maxevents, timeout, sigmask));
  if (timeout != NULL && !detsim__timespec_valid(timeout)) return (int)leave(f, fail(EINVAL));
  uint64_t saved = detsim__sig_mask_enter(sigmask);
  int r = sim_epoll_wait(f, ev, maxevents, deadline_ts(timeout));
  detsim__sig_mask_leave(saved);
  return r;
}
DETSIM_INTERCEPT_ALIAS(epoll_pwait2)
