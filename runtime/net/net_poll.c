/* poll, ppoll, select and pselect over simulated descriptors.
 *
 * A set that holds at least one simulated descriptor (or none at all, which
 * makes poll a sleep) waits in the simulation, on virtual time.  Real
 * descriptors in a mixed set are asked once, without waiting, when the call
 * starts and again when it ends: their readiness changes outside the
 * simulation, so it cannot wake a simulated wait (regular files, always
 * ready, are the common case and work).  A set of real descriptors only goes
 * to the kernel unchanged (the interceptor's job).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>

#include "core/core.h"
#include "time/time.h"
#include "net/net.h"
#include "intercept/intercept.h"

bool net_poll_has_sim(struct pollfd *fds, unsigned long nfds) {
  for (unsigned long i = 0; i < nfds; i++)
    if (net_fd_get(fds[i].fd) != NULL) return true;
  return false;
}

struct poll_arg {
  struct pollfd *fds;
  unsigned long nfds;
};

/* Fills revents of the simulated descriptors; returns how many are ready. */
static int sim_revents(struct pollfd *fds, unsigned long nfds, uint64_t now, bool write) {
  int ready = 0;
  for (unsigned long i = 0; i < nfds; i++) {
    struct net_file *f = net_fd_get(fds[i].fd);
    if (f == NULL) continue;
    uint32_t m = net_file_poll(f, now) & ((uint32_t)(uint16_t)fds[i].events | POLLERR | POLLHUP);
    if (write) fds[i].revents = (short)m;
    if (m) ready++;
  }
  return ready;
}

static bool poll_ready(void *arg) {
  struct poll_arg *a = arg;
  return sim_revents(a->fds, a->nfds, detsim__now_ns(), false) > 0;
}

static uint64_t poll_next(void *arg) {
  struct poll_arg *a = arg;
  uint64_t now = detsim__now_ns(), t = DETSIM_NO_DEADLINE;
  for (unsigned long i = 0; i < a->nfds; i++) {
    struct net_file *f = net_fd_get(a->fds[i].fd);
    if (f == NULL) continue;
    uint64_t x = net_file_next_change(f, now);
    if (x < t) t = x;
  }
  return t;
}

/* Asks the kernel about the real descriptors, without waiting; returns how
 * many are ready. */
static int real_revents(struct pollfd *fds, unsigned long nfds) {
  int ready = 0;
  for (unsigned long i = 0; i < nfds; i++) {
    if (fds[i].fd < 0 || net_fd_get(fds[i].fd) != NULL) continue;
    struct pollfd one = fds[i];
    one.revents = 0;
    if (REAL(poll)(&one, 1, 0) < 0) one.revents = POLLNVAL;
    fds[i].revents = one.revents;
    if (one.revents) ready++;
  }
  return ready;
}

int net_poll(struct pollfd *fds, unsigned long nfds, uint64_t deadline) {
  for (unsigned long i = 0; i < nfds; i++) fds[i].revents = 0;
  int real_ready = real_revents(fds, nfds);
  struct poll_arg a = { fds, nfds };
  if (real_ready == 0 && !poll_ready(&a)) {
    if (net_wait(DETSIM_EV_net_poll, fds, poll_ready, poll_next, &a, deadline) == EINTR) {
      errno = EINTR;
      return -1;
    }
    real_ready = real_revents(fds, nfds);
  }
  return sim_revents(fds, nfds, detsim__now_ns(), true) + real_ready;
}
