/* The ROUTE lines of syscall_table.def: a raw system call runs the
 * runtime's interceptor of its libc wrapper.
 *
 * Each adapter converts the kernel's conventions into the wrapper's and
 * back: 8-byte kernel signal sets (sigsetsize must be 8, else EINVAL), the
 * kernel's struct sigaction, pselect6's {sigset, size} pair, ppoll and
 * pselect6 writing back the time left, calls whose wrapper returns an error
 * number (clock_nanosleep, pthread_kill) returning -1 and errno instead.
 * Results are syscall(2)'s: the value, or -1 with errno.
 *
 * Rule: the runtime's own interceptors are called by their __detsim_ names
 * (declared here with the libc prototypes), never through the libc names,
 * and the kernel only through REAL(syscall).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "time/time.h"
#include "net/net.h"
#include "intercept/intercept.h"

#define DECL(name) extern __typeof__(name) __detsim_##name;
DECL(read) DECL(write) DECL(close) DECL(poll) DECL(readv) DECL(writev) DECL(pipe) DECL(pipe2) DECL(select)
DECL(pselect) DECL(ppoll) DECL(sched_yield) DECL(dup) DECL(dup2) DECL(dup3) DECL(pause) DECL(nanosleep)
DECL(clock_nanosleep) DECL(getitimer) DECL(setitimer) DECL(alarm) DECL(sendfile) DECL(socket) DECL(connect)
DECL(accept) DECL(accept4) DECL(sendto) DECL(recvfrom) DECL(sendmsg) DECL(recvmsg) DECL(sendmmsg) DECL(recvmmsg)
DECL(shutdown) DECL(bind) DECL(listen) DECL(getsockname) DECL(getpeername) DECL(socketpair) DECL(setsockopt)
DECL(getsockopt) DECL(kill) DECL(pthread_kill) DECL(fcntl) DECL(ioctl) DECL(gettimeofday) DECL(time)
DECL(clock_gettime) DECL(clock_getres) DECL(epoll_create) DECL(epoll_create1) DECL(epoll_ctl) DECL(epoll_wait)
DECL(epoll_pwait) DECL(epoll_pwait2) DECL(timerfd_create) DECL(timerfd_settime) DECL(timerfd_gettime)
DECL(signalfd) DECL(eventfd) DECL(getrandom) DECL(sigaction) DECL(sigprocmask) DECL(sigpending)
DECL(sigtimedwait) DECL(sigsuspend) DECL(unlink) DECL(unlinkat) DECL(sched_setaffinity) DECL(pthread_exit)
DECL(_exit) DECL(fork) DECL(vfork) DECL(wait4) DECL(waitid) DECL(fstat) DECL(fstatat) DECL(statx)
#undef DECL

#define P(i, type) ((type)a[i])
#define I(i) ((int)a[i])
#define KERNEL_SIGSET_BYTES 8
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000 /* the kernel's flag; glibc sets it in every sigaction */
#endif

static long native(long number, const long a[6]) {
  return REAL(syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static long from_errno_result(int r) { return r == 0 ? 0 : detsim__sys_fail(r); }

/* A kernel signal set (8 bytes) as libc's sigset_t; NULL stays NULL. */
static const sigset_t *sigset_in(const void *kset, sigset_t *buf) {
  if (kset == NULL) return NULL;
  sigemptyset(buf);
  memcpy(buf, kset, KERNEL_SIGSET_BYTES);
  return buf;
}

static bool bad_sigsetsize(const void *kset, long size) { return kset != NULL && size != KERNEL_SIGSET_BYTES; }

/* ---- descriptors and I/O ---- */

long detsim__sys_read(const long a[6]) { return __detsim_read(I(0), P(1, void *), P(2, size_t)); }
long detsim__sys_write(const long a[6]) { return __detsim_write(I(0), P(1, const void *), P(2, size_t)); }
long detsim__sys_close(const long a[6]) { return __detsim_close(I(0)); }
long detsim__sys_readv(const long a[6]) { return __detsim_readv(I(0), P(1, const struct iovec *), I(2)); }
long detsim__sys_writev(const long a[6]) { return __detsim_writev(I(0), P(1, const struct iovec *), I(2)); }
long detsim__sys_pipe(const long a[6]) { return __detsim_pipe(P(0, int *)); }
long detsim__sys_pipe2(const long a[6]) { return __detsim_pipe2(P(0, int *), I(1)); }
long detsim__sys_dup(const long a[6]) { return __detsim_dup(I(0)); }
long detsim__sys_dup2(const long a[6]) { return __detsim_dup2(I(0), I(1)); }
long detsim__sys_dup3(const long a[6]) { return __detsim_dup3(I(0), I(1), I(2)); }
long detsim__sys_fcntl(const long a[6]) { return __detsim_fcntl(I(0), I(1), a[2]); }
long detsim__sys_ioctl(const long a[6]) { return __detsim_ioctl(I(0), P(1, unsigned long), P(2, void *)); }
long detsim__sys_fstat(const long a[6]) { return __detsim_fstat(I(0), P(1, struct stat *)); }
long detsim__sys_newfstatat(const long a[6]) {
  return __detsim_fstatat(I(0), P(1, const char *), P(2, struct stat *), I(3));
}
long detsim__sys_statx(const long a[6]) {
  return __detsim_statx(I(0), P(1, const char *), I(2), P(3, unsigned int), P(4, struct statx *));
}
long detsim__sys_sendfile(const long a[6]) {
  return __detsim_sendfile(I(0), I(1), P(2, off_t *), P(3, size_t));
}
long detsim__sys_unlink(const long a[6]) { return __detsim_unlink(P(0, const char *)); }
long detsim__sys_unlinkat(const long a[6]) { return __detsim_unlinkat(I(0), P(1, const char *), I(2)); }

/* Simulated descriptors are sockets, pipes, eventfds, timerfds, signalfds
 * and epolls: none is seekable, as in Linux. */
static long positioned(long number, const long a[6]) {
  if (net_fd_get(I(0)) != NULL) return detsim__sys_fail(ESPIPE);
  return native(number, a);
}
long detsim__sys_lseek(const long a[6]) { return positioned(SYS_lseek, a); }
long detsim__sys_pread64(const long a[6]) { return positioned(SYS_pread64, a); }
long detsim__sys_pwrite64(const long a[6]) { return positioned(SYS_pwrite64, a); }
long detsim__sys_preadv(const long a[6]) { return positioned(SYS_preadv, a); }
long detsim__sys_pwritev(const long a[6]) { return positioned(SYS_pwritev, a); }
/* preadv2/pwritev2 take the offset as two halves (a[3], a[4]) and flags
 * (a[5]); offset -1 means the current position, which a stream has. */
long detsim__sys_preadv2(const long a[6]) {
  if (net_fd_get(I(0)) != NULL && a[3] == -1 && a[5] == 0)
    return __detsim_readv(I(0), P(1, const struct iovec *), I(2));
  return positioned(SYS_preadv2, a);
}
long detsim__sys_pwritev2(const long a[6]) {
  if (net_fd_get(I(0)) != NULL && a[3] == -1 && a[5] == 0)
    return __detsim_writev(I(0), P(1, const struct iovec *), I(2));
  return positioned(SYS_pwritev2, a);
}

long detsim__sys_close_range(const long a[6]) {
  unsigned first = (unsigned)a[0], last = (unsigned)a[1], flags = (unsigned)a[2];
  if (first > last) return detsim__sys_fail(EINVAL);
  unsigned top = last < DETSIM_NET_FD_NUMBER_MAX - 1 ? last : DETSIM_NET_FD_NUMBER_MAX - 1;
  bool any = false;
  for (unsigned fd = first; fd <= top && !any; fd++) any = net_fd_get((int)fd) != NULL;
  if (any && flags != 0) {
    detsim__sys_report("close_range with flags over simulated descriptors", "only plain closing is");
    return detsim__sys_fail(EINVAL);
  }
  /* The simulated ones close as close() closes them (their placeholders
   * with them); the kernel then closes the real ones. */
  for (unsigned fd = first; any && fd <= top; fd++)
    if (net_fd_get((int)fd) != NULL) __detsim_close((int)fd);
  return native(SYS_close_range, a);
}

/* ---- sockets ---- */

long detsim__sys_socket(const long a[6]) { return __detsim_socket(I(0), I(1), I(2)); }
long detsim__sys_socketpair(const long a[6]) { return __detsim_socketpair(I(0), I(1), I(2), P(3, int *)); }
long detsim__sys_bind(const long a[6]) { return __detsim_bind(I(0), P(1, const struct sockaddr *), P(2, socklen_t)); }
long detsim__sys_listen(const long a[6]) { return __detsim_listen(I(0), I(1)); }
long detsim__sys_connect(const long a[6]) {
  return __detsim_connect(I(0), P(1, const struct sockaddr *), P(2, socklen_t));
}
long detsim__sys_accept(const long a[6]) { return __detsim_accept(I(0), P(1, struct sockaddr *), P(2, socklen_t *)); }
long detsim__sys_accept4(const long a[6]) {
  return __detsim_accept4(I(0), P(1, struct sockaddr *), P(2, socklen_t *), I(3));
}
long detsim__sys_shutdown(const long a[6]) { return __detsim_shutdown(I(0), I(1)); }
long detsim__sys_getsockname(const long a[6]) {
  return __detsim_getsockname(I(0), P(1, struct sockaddr *), P(2, socklen_t *));
}
long detsim__sys_getpeername(const long a[6]) {
  return __detsim_getpeername(I(0), P(1, struct sockaddr *), P(2, socklen_t *));
}
long detsim__sys_setsockopt(const long a[6]) {
  return __detsim_setsockopt(I(0), I(1), I(2), P(3, const void *), P(4, socklen_t));
}
long detsim__sys_getsockopt(const long a[6]) {
  return __detsim_getsockopt(I(0), I(1), I(2), P(3, void *), P(4, socklen_t *));
}
long detsim__sys_sendto(const long a[6]) {
  return __detsim_sendto(I(0), P(1, const void *), P(2, size_t), I(3), P(4, const struct sockaddr *), P(5, socklen_t));
}
long detsim__sys_recvfrom(const long a[6]) {
  return __detsim_recvfrom(I(0), P(1, void *), P(2, size_t), I(3), P(4, struct sockaddr *), P(5, socklen_t *));
}
long detsim__sys_sendmsg(const long a[6]) { return __detsim_sendmsg(I(0), P(1, const struct msghdr *), I(2)); }
long detsim__sys_recvmsg(const long a[6]) { return __detsim_recvmsg(I(0), P(1, struct msghdr *), I(2)); }
long detsim__sys_sendmmsg(const long a[6]) {
  return __detsim_sendmmsg(I(0), P(1, struct mmsghdr *), P(2, unsigned), I(3));
}
long detsim__sys_recvmmsg(const long a[6]) {
  return __detsim_recvmmsg(I(0), P(1, struct mmsghdr *), P(2, unsigned), I(3), P(4, struct timespec *));
}

/* ---- eventfd, timerfd, signalfd, epoll ---- */

long detsim__sys_eventfd(const long a[6]) { return __detsim_eventfd(P(0, unsigned), 0); }
long detsim__sys_eventfd2(const long a[6]) { return __detsim_eventfd(P(0, unsigned), I(1)); }
long detsim__sys_timerfd_create(const long a[6]) { return __detsim_timerfd_create(I(0), I(1)); }
long detsim__sys_timerfd_settime(const long a[6]) {
  return __detsim_timerfd_settime(I(0), I(1), P(2, const struct itimerspec *), P(3, struct itimerspec *));
}
long detsim__sys_timerfd_gettime(const long a[6]) { return __detsim_timerfd_gettime(I(0), P(1, struct itimerspec *)); }

static long signalfd_with(const long a[6], int flags) {
  if (a[1] == 0 || a[2] != KERNEL_SIGSET_BYTES) return detsim__sys_fail(EINVAL);
  sigset_t set;
  return __detsim_signalfd(I(0), sigset_in(P(1, const void *), &set), flags);
}
long detsim__sys_signalfd(const long a[6]) { return signalfd_with(a, 0); }
long detsim__sys_signalfd4(const long a[6]) { return signalfd_with(a, I(3)); }

long detsim__sys_epoll_create(const long a[6]) { return __detsim_epoll_create(I(0)); }
long detsim__sys_epoll_create1(const long a[6]) { return __detsim_epoll_create1(I(0)); }
long detsim__sys_epoll_ctl(const long a[6]) { return __detsim_epoll_ctl(I(0), I(1), I(2), P(3, struct epoll_event *)); }
long detsim__sys_epoll_wait(const long a[6]) { return __detsim_epoll_wait(I(0), P(1, struct epoll_event *), I(2), I(3)); }
long detsim__sys_epoll_pwait(const long a[6]) {
  if (bad_sigsetsize(P(4, const void *), a[5])) return detsim__sys_fail(EINVAL);
  sigset_t set;
  return __detsim_epoll_pwait(I(0), P(1, struct epoll_event *), I(2), I(3), sigset_in(P(4, const void *), &set));
}
long detsim__sys_epoll_pwait2(const long a[6]) {
  if (bad_sigsetsize(P(4, const void *), a[5])) return detsim__sys_fail(EINVAL);
  sigset_t set;
  return __detsim_epoll_pwait2(I(0), P(1, struct epoll_event *), I(2), P(3, const struct timespec *),
                               sigset_in(P(4, const void *), &set));
}

/* ---- poll and select ---- */

long detsim__sys_poll(const long a[6]) { return __detsim_poll(P(0, struct pollfd *), P(1, nfds_t), I(2)); }
long detsim__sys_select(const long a[6]) {
  return __detsim_select(I(0), P(1, fd_set *), P(2, fd_set *), P(3, fd_set *), P(4, struct timeval *));
}

/* The kernel writes the time left back into ppoll's and pselect6's
 * timeout (the libc wrappers hide it); measured on virtual time. */
static void write_back_left(struct timespec *ts, uint64_t start, struct timespec given) {
  uint64_t want = (uint64_t)given.tv_sec * 1000000000ull + (uint64_t)given.tv_nsec;
  uint64_t spent = detsim__now_ns() - start;
  uint64_t left = spent < want ? want - spent : 0;
  ts->tv_sec = (time_t)(left / 1000000000ull);
  ts->tv_nsec = (long)(left % 1000000000ull);
}

static bool pollfds_simulated(const struct pollfd *fds, nfds_t n) {
  if (n == 0) return true; /* a sleep */
  for (nfds_t i = 0; i < n; i++)
    if (net_fd_get(fds[i].fd) != NULL) return true;
  return false;
}

long detsim__sys_ppoll(const long a[6]) {
  struct pollfd *fds = P(0, struct pollfd *);
  struct timespec *ts = P(2, struct timespec *);
  if (!pollfds_simulated(fds, P(1, nfds_t))) return native(SYS_ppoll, a);
  if (bad_sigsetsize(P(3, const void *), a[4])) return detsim__sys_fail(EINVAL);
  sigset_t set;
  struct timespec given = ts ? *ts : (struct timespec){0, 0};
  uint64_t start = detsim__now_ns();
  long r = __detsim_ppoll(fds, P(1, nfds_t), ts, sigset_in(P(3, const void *), &set));
  if (ts != NULL && detsim__timespec_valid(&given)) write_back_left(ts, start, given);
  return r;
}

static bool fdsets_simulated(int n, const fd_set *r, const fd_set *w, const fd_set *e) {
  if (r == NULL && w == NULL && e == NULL) return true; /* a sleep */
  if (n > FD_SETSIZE) n = FD_SETSIZE;
  for (int fd = 0; fd < n; fd++) {
    bool in = (r && FD_ISSET(fd, r)) || (w && FD_ISSET(fd, w)) || (e && FD_ISSET(fd, e));
    if (in && net_fd_get(fd) != NULL) return true;
  }
  return false;
}

long detsim__sys_pselect6(const long a[6]) {
  fd_set *r = P(1, fd_set *), *w = P(2, fd_set *), *e = P(3, fd_set *);
  struct timespec *ts = P(4, struct timespec *);
  if (!fdsets_simulated(I(0), r, w, e)) return native(SYS_pselect6, a);
  /* The sixth argument: { const kernel sigset *, size_t size }, or NULL. */
  const struct { const void *set; size_t size; } *sig = P(5, const void *);
  const void *kset = sig ? sig->set : NULL;
  if (kset != NULL && sig->size != KERNEL_SIGSET_BYTES) return detsim__sys_fail(EINVAL);
  sigset_t set;
  struct timespec given = ts ? *ts : (struct timespec){0, 0};
  uint64_t start = detsim__now_ns();
  long n = __detsim_pselect(I(0), r, w, e, ts, sigset_in(kset, &set));
  if (ts != NULL && detsim__timespec_valid(&given)) write_back_left(ts, start, given);
  return n;
}

/* ---- time ---- */

long detsim__sys_clock_gettime(const long a[6]) { return __detsim_clock_gettime(I(0), P(1, struct timespec *)); }
long detsim__sys_clock_getres(const long a[6]) { return __detsim_clock_getres(I(0), P(1, struct timespec *)); }
long detsim__sys_gettimeofday(const long a[6]) { return __detsim_gettimeofday(P(0, struct timeval *), P(1, void *)); }
long detsim__sys_time(const long a[6]) { return __detsim_time(P(0, time_t *)); }
long detsim__sys_nanosleep(const long a[6]) {
  return __detsim_nanosleep(P(0, const struct timespec *), P(1, struct timespec *));
}
long detsim__sys_clock_nanosleep(const long a[6]) {
  return from_errno_result(
      __detsim_clock_nanosleep(I(0), I(1), P(2, const struct timespec *), P(3, struct timespec *)));
}
long detsim__sys_alarm(const long a[6]) { return __detsim_alarm(P(0, unsigned)); }
long detsim__sys_getitimer(const long a[6]) { return __detsim_getitimer(I(0), P(1, struct itimerval *)); }
long detsim__sys_setitimer(const long a[6]) {
  return __detsim_setitimer(I(0), P(1, const struct itimerval *), P(2, struct itimerval *));
}

/* ---- randomness, scheduling, processes ---- */

long detsim__sys_getrandom(const long a[6]) { return __detsim_getrandom(P(0, void *), P(1, size_t), P(2, unsigned)); }
long detsim__sys_sched_yield(const long a[6]) {
  (void)a;
  return __detsim_sched_yield();
}
long detsim__sys_sched_setaffinity(const long a[6]) {
  return __detsim_sched_setaffinity(I(0), P(1, size_t), P(2, const cpu_set_t *));
}

long detsim__sys_exit_group(const long a[6]) {
  __detsim__exit(I(0));
  __builtin_unreachable();
}
long detsim__sys_exit(const long a[6]) {
  /* The last thread's exit is the process's; any other ends that thread
   * (what it returns to a joiner is lost: NULL). */
  if (detsim__live_threads() <= 1) __detsim__exit(I(0));
  __detsim_pthread_exit(NULL);
  __builtin_unreachable();
}

/* ---- signals ---- */

long detsim__sys_kill(const long a[6]) { return __detsim_kill(I(0), I(1)); }

static long to_thread(pid_t tid, int sig) {
  detsim_thread *t = detsim__sys_thread_of_tid(tid);
  if (t == NULL) return detsim__sys_fail(tid <= 0 ? EINVAL : ESRCH);
  return from_errno_result(__detsim_pthread_kill(detsim__thread_pthread(t), sig));
}
long detsim__sys_tkill(const long a[6]) { return to_thread(I(0), I(1)); }
long detsim__sys_tgkill(const long a[6]) {
  if (I(0) <= 0 || I(1) <= 0) return detsim__sys_fail(EINVAL);
  if (I(0) != detsim__sys_getpid(a)) {
    detsim__sys_report("tgkill to another process", "only the process's own threads are simulated targets");
    return detsim__sys_fail(ESRCH);
  }
  return to_thread(I(1), I(2));
}

/* The kernel's struct sigaction (x86_64): handler, flags, restorer, mask. */
struct kernel_sigaction {
  void *handler;
  unsigned long flags;
  void *restorer;
  uint64_t mask;
};

long detsim__sys_rt_sigaction(const long a[6]) {
  const struct kernel_sigaction *kact = P(1, const struct kernel_sigaction *);
  struct kernel_sigaction *kold = P(2, struct kernel_sigaction *);
  if (a[3] != KERNEL_SIGSET_BYTES) return detsim__sys_fail(EINVAL);
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  memset(&old, 0, sizeof old);
  if (kact != NULL) {
    act.sa_handler = (void (*)(int))kact->handler;
    act.sa_flags = (int)(kact->flags & ~(unsigned long)SA_RESTORER);
    sigset_in(&kact->mask, &act.sa_mask);
  }
  if (__detsim_sigaction(I(0), kact ? &act : NULL, kold ? &old : NULL) != 0) return -1;
  if (kold != NULL) {
    kold->handler = (void *)old.sa_handler;
    kold->flags = (unsigned long)(unsigned)old.sa_flags;
    kold->restorer = NULL;
    memcpy(&kold->mask, &old.sa_mask, KERNEL_SIGSET_BYTES);
  }
  return 0;
}

long detsim__sys_rt_sigprocmask(const long a[6]) {
  const void *kset = P(1, const void *);
  void *kold = P(2, void *);
  if (a[3] != KERNEL_SIGSET_BYTES) return detsim__sys_fail(EINVAL);
  sigset_t set, old;
  sigemptyset(&old);
  if (__detsim_sigprocmask(I(0), sigset_in(kset, &set), kold ? &old : NULL) != 0) return -1;
  if (kold != NULL) memcpy(kold, &old, KERNEL_SIGSET_BYTES);
  return 0;
}

long detsim__sys_rt_sigpending(const long a[6]) {
  if (a[1] > KERNEL_SIGSET_BYTES || a[1] < 0) return detsim__sys_fail(EINVAL);
  sigset_t set;
  sigemptyset(&set);
  if (__detsim_sigpending(&set) != 0) return -1;
  memcpy(P(0, void *), &set, (size_t)a[1]);
  return 0;
}

long detsim__sys_rt_sigtimedwait(const long a[6]) {
  if (a[3] != KERNEL_SIGSET_BYTES) return detsim__sys_fail(EINVAL);
  sigset_t set;
  return __detsim_sigtimedwait(sigset_in(P(0, const void *), &set), P(1, siginfo_t *), P(2, const struct timespec *));
}

long detsim__sys_rt_sigsuspend(const long a[6]) {
  if (a[1] != KERNEL_SIGSET_BYTES) return detsim__sys_fail(EINVAL);
  sigset_t set;
  return __detsim_sigsuspend(sigset_in(P(0, const void *), &set));
}

long detsim__sys_pause(const long a[6]) {
  (void)a;
  return __detsim_pause();
}

/* ---- processes (runtime/proc/) ---- */
long detsim__sys_fork(const long a[6]) {
  (void)a;
  return __detsim_fork();
}
long detsim__sys_vfork(const long a[6]) {
  (void)a;
  return __detsim_vfork();
}
long detsim__sys_wait4(const long a[6]) {
  return __detsim_wait4(I(0), P(1, int *), I(2), P(3, struct rusage *));
}
long detsim__sys_waitid(const long a[6]) {
  long r = __detsim_waitid((idtype_t)I(0), (id_t)a[1], P(2, siginfo_t *), I(3));
  if (r == 0 && P(4, struct rusage *) != NULL) memset(P(4, struct rusage *), 0, sizeof(struct rusage));
  return r;
}
