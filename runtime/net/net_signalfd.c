/* Signalfds: the simulation's pending signals, read as a descriptor.
 *
 * A signalfd is a mask.  Reading it takes pending signals of the mask (the
 * reading thread's own, then the process's, as sigwaitinfo does) without
 * running handlers; it is readable while a process-directed signal of the
 * mask is pending (signal.c), which is how programs use it: the signals
 * blocked with sigprocmask, the descriptor in an epoll set.  Linux's poll
 * also counts the polling thread's own pending signals; here readiness is a
 * pure function of the process's state, so a signal sent to one thread with
 * pthread_kill is read by that thread but does not make the descriptor
 * readable for poll (docs/signals.md).
 */
#include <errno.h>
#include <string.h>
#include <sys/signalfd.h>

#include "core/core.h"
#include "net/net.h"
#include "world/world.h"
#include "sched/sched.h"
#include "signal/signal.h"

struct net_signalfd {
  uint64_t mask;
};

static uint64_t mask_of(const sigset_t *set) { return detsim__sig_bits(set) & ~DETSIM_SIG_UNBLOCKABLE; }

int net_signalfd(int fd, const sigset_t *mask, int flags) {
  if (flags & ~(SFD_NONBLOCK | SFD_CLOEXEC)) {
    errno = EINVAL;
    return -1;
  }
  if (fd != -1) {
    /* A new mask for an existing signalfd. */
    struct net_file *f = net_fd_get(fd);
    if (f == NULL) {
      errno = EBADF;
      return -1;
    }
    if (f->kind != NET_SIGNALFD) {
      errno = EINVAL;
      return -1;
    }
    ((struct net_signalfd *)f->obj)->mask = mask_of(mask);
    f->changes++;
    return fd;
  }
  struct net_signalfd *s = detsim__net_calloc(1, sizeof *s);
  CHECK(s != NULL);
  s->mask = mask_of(mask);
  return net_fd_open(NET_SIGNALFD, s, (flags & SFD_NONBLOCK) != 0, (flags & SFD_CLOEXEC) != 0, NULL);
}

void net_signalfd_release(struct net_file *f) { detsim__net_free(f->obj); }

static bool signalfd_ready(void *arg) {
  struct net_file *f = arg;
  return (detsim__sig_process_pending() & ((struct net_signalfd *)f->obj)->mask) != 0;
}

static uint64_t signalfd_next(void *arg) {
  (void)arg;
  return detsim__sig_next_timer();
}

ssize_t net_signalfd_read(struct net_file *f, void *buf, size_t len) {
  const struct net_signalfd *s = f->obj;
  detsim_thread *self = detsim__self();
  if (len < sizeof(struct signalfd_siginfo)) {
    errno = EINVAL;
    return -1;
  }
  for (;;) {
    size_t used = 0;
    siginfo_t info;
    while (used + sizeof(struct signalfd_siginfo) <= len && detsim__sig_take(self, s->mask, &info) != 0) {
      struct signalfd_siginfo out;
      memset(&out, 0, sizeof out);
      out.ssi_signo = (uint32_t)info.si_signo;
      out.ssi_code = info.si_code;
      out.ssi_pid = (uint32_t)info.si_pid;
      out.ssi_uid = info.si_uid;
      out.ssi_int = info.si_value.sival_int;
      memcpy((char *)buf + used, &out, sizeof out);
      used += sizeof out;
    }
    if (used > 0) {
      f->changes++;
      return (ssize_t)used;
    }
    if (f->nonblock) {
      errno = EAGAIN;
      return -1;
    }
    int wr = net_wait(DETSIM_EV_net_recv, f, signalfd_ready, signalfd_next, f, DETSIM_NO_DEADLINE);
    if (wr != 0) {
      errno = wr == EINTR ? EINTR : EAGAIN;
      return -1;
    }
  }
}

uint32_t net_signalfd_poll(struct net_file *f) { return signalfd_ready(f) ? EPOLLIN : 0; }

uint64_t net_signalfd_next_change(void) { return detsim__sig_next_timer(); }

/* Each signal sent raises a new edge. */
uint64_t net_signalfd_gen(void) { return detsim__sig_sent + (detsim__sig_process_pending() != 0); }
