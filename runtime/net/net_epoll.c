/* epoll over simulated descriptors.
 *
 * An instance keeps its registrations in the order they were added; a wait
 * reports the ready ones starting after the last one it reported (so a
 * small maxevents never starves a registration), at most maxevents.
 *  - Level-triggered: reported while ready.
 *  - Edge-triggered (EPOLLET): reported when the file's generation
 *    (net_file_gen: operations and arrivals that may raise readiness) moved
 *    since it was last reported, as Linux wakes on every new arrival.
 *  - EPOLLONESHOT: disabled after one report until EPOLL_CTL_MOD.
 * A registration is keyed by descriptor and file, and disappears when the
 * file is released (its last descriptor closed), as Linux's does.  Of real
 * descriptors only inotify instances can be registered (net_inotify.c:
 * the kernel asked without waiting; gone when the descriptor closes);
 * others fail loudly (EPERM, what Linux says for a regular file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "core/core.h"
#include "time/time.h"
#include "net/net.h"
#include "world/world.h"
#include "intercept/intercept.h"

struct epoll_reg {
  int fd;
  struct net_file *file;
  uint32_t events;
  epoll_data_t data;
  uint64_t seen_gen;    /* edge triggering: the generation last reported */
  bool disabled;        /* EPOLLONESHOT fired */
};

struct net_epoll {
  struct net_file *self;
  struct epoll_reg *regs;
  unsigned n, cap;
  unsigned cursor;      /* where the next report starts */
  struct net_epoll *next_instance;
};

static struct net_epoll *instances_local;
static unsigned registrations_local;
/* With the world's region (a run that may fork, a world's node) they are
 * the host's, in the region: the processes of a host share the instances
 * (world_abi.h). */
#define instances (*(detsim__ws != NULL ? (struct net_epoll **)&detsim__ws->epoll_instances[detsim__host_index] \
                                        : &instances_local))
#define registrations (*(detsim__ws != NULL ? &detsim__ws->epoll_registrations[detsim__host_index] \
                                            : &registrations_local))

void net_epoll_host_restart(unsigned host) {
  /* The crashed processes' instances stay in the arena, unreachable. */
  detsim__ws->epoll_instances[host] = NULL;
  detsim__ws->epoll_registrations[host] = 0;
}

int net_epoll_create(int flags) {
  if (flags & ~EPOLL_CLOEXEC) {
    errno = EINVAL;
    return -1;
  }
  struct net_epoll *ep = detsim__net_calloc(1, sizeof *ep);
  CHECK(ep != NULL);
  int fd = net_fd_open(NET_EPOLL, ep, false, (flags & EPOLL_CLOEXEC) != 0, &ep->self);
  if (fd < 0) return -1;
  ep->next_instance = instances;
  instances = ep;
  return fd;
}

static void remove_at(struct net_epoll *ep, unsigned i) {
  if (ep->regs[i].file->kind == NET_INOTIFY) net_inotify_release(ep->regs[i].file);
  memmove(&ep->regs[i], &ep->regs[i + 1], (ep->n - i - 1) * sizeof *ep->regs);
  ep->n--;
  CHECK_GE(registrations, 1);
  registrations--;
  if (ep->cursor > i) ep->cursor--;
}

void net_epoll_release(struct net_file *f) {
  struct net_epoll *ep = f->obj;
  for (struct net_epoll **p = &instances; *p; p = &(*p)->next_instance) {
    if (*p == ep) {
      *p = ep->next_instance;
      break;
    }
  }
  CHECK_GE(registrations, ep->n);
  registrations -= ep->n;
  for (unsigned i = 0; i < ep->n; i++)
    if (ep->regs[i].file->kind == NET_INOTIFY) net_inotify_release(ep->regs[i].file);
  detsim__net_free(ep->regs);
  detsim__net_free(ep);
}

void net_epoll_forget(struct net_file *f) {
  for (struct net_epoll *ep = instances; ep; ep = ep->next_instance)
    for (unsigned i = ep->n; i-- > 0;)
      if (ep->regs[i].file == f) remove_at(ep, i);
}

void net_epoll_forget_real(int fd) {
  for (struct net_epoll *ep = instances; ep; ep = ep->next_instance)
    for (unsigned i = ep->n; i-- > 0;)
      if (ep->regs[i].fd == fd && ep->regs[i].file->kind == NET_INOTIFY) remove_at(ep, i);
}

/* The registration of (fd, f); f NULL: of real descriptor fd. */
static int find(struct net_epoll *ep, int fd, struct net_file *f) {
  for (unsigned i = 0; i < ep->n; i++)
    if (ep->regs[i].fd == fd && (f == NULL ? ep->regs[i].file->kind == NET_INOTIFY : ep->regs[i].file == f))
      return (int)i;
  return -1;
}

/* Would adding `f` under `ep` make a loop or nest too deep? */
static int depth_below(struct net_file *f, unsigned depth) {
  if (f->kind != NET_EPOLL) return 0;
  if (depth > DETSIM_NET_EPOLL_NEST_MAX) return -1;
  struct net_epoll *ep = f->obj;
  int worst = 0;
  for (unsigned i = 0; i < ep->n; i++) {
    int d = depth_below(ep->regs[i].file, depth + 1);
    if (d < 0) return -1;
    if (d + 1 > worst) worst = d + 1;
  }
  return worst;
}

static bool reaches(struct net_file *from, struct net_file *target) {
  if (from == target) return true;
  if (from->kind != NET_EPOLL) return false;
  struct net_epoll *ep = from->obj;
  for (unsigned i = 0; i < ep->n; i++)
    if (reaches(ep->regs[i].file, target)) return true;
  return false;
}

#define EPOLL_KNOWN (EPOLLIN | EPOLLOUT | EPOLLPRI | EPOLLERR | EPOLLHUP | EPOLLRDHUP | EPOLLRDNORM | \
                     EPOLLRDBAND | EPOLLWRNORM | EPOLLWRBAND | EPOLLMSG | EPOLLET | EPOLLONESHOT | \
                     EPOLLWAKEUP | EPOLLEXCLUSIVE)

int net_epoll_ctl(struct net_file *epf, int op, int fd, struct epoll_event *ev) {
  struct net_epoll *ep = epf->obj;
  struct net_file *f = net_fd_get(fd);
  if (f == NULL) {
    if (REAL(fcntl)(fd, F_GETFD) < 0) return EBADF;
    if (!net_inotify_is(fd)) {
      net_unsupported("epoll_ctl on a real descriptor",
                      "only simulated sockets, pipes, eventfds, timerfds, epolls and real inotify descriptors can be watched");
      return EPERM;
    }
  }
  if (f == epf) return EINVAL;
  if (op != EPOLL_CTL_DEL && ev == NULL) return EFAULT;
  int i = find(ep, fd, f);
  if (op == EPOLL_CTL_ADD) {
    if (i >= 0) return EEXIST;
    if (f != NULL && f->kind == NET_EPOLL) {
      if (reaches(f, epf)) return ELOOP;
      if (depth_below(f, 1) < 0 || depth_below(f, 1) + 1 >= DETSIM_NET_EPOLL_NEST_MAX) return ELOOP;
    }
    if (ev->events & ~(uint32_t)EPOLL_KNOWN) return EINVAL;
    if (registrations >= DETSIM_NET_EPOLL_REGISTRATIONS_MAX) {
      net_limit("net_epoll_registrations_max", DETSIM_NET_EPOLL_REGISTRATIONS_MAX, "too many epoll registrations (ENOSPC)");
      return ENOSPC;
    }
    if (f == NULL) {
      f = net_inotify_file(fd);
      if (f == NULL) return ENFILE;
    }
    if (ep->n == ep->cap) {
      ep->cap = ep->cap ? ep->cap * 2 : 8;
      ep->regs = detsim__net_realloc(ep->regs, ep->cap * sizeof *ep->regs);
      CHECK(ep->regs != NULL);
    }
    struct epoll_reg *r = &ep->regs[ep->n++];
    registrations++;
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->file = f;
    r->events = ev->events;
    r->data = ev->data;
    r->seen_gen = UINT64_MAX; /* an edge-triggered registration reports current readiness once */
    epf->changes++;
    /* A wait already blocked on this instance did not know of its arrivals. */
    detsim__sched_times_changed();
    return 0;
  }
  if (i < 0) return ENOENT;
  if (op == EPOLL_CTL_DEL) {
    remove_at(ep, (unsigned)i);
    return 0;
  }
  if (op == EPOLL_CTL_MOD) {
    if (ev->events & ~(uint32_t)EPOLL_KNOWN) return EINVAL;
    if (ev->events & EPOLLEXCLUSIVE) return EINVAL;
    struct epoll_reg *r = &ep->regs[i];
    r->events = ev->events;
    r->data = ev->data;
    r->disabled = false;
    r->seen_gen = UINT64_MAX;
    epf->changes++;
    detsim__sched_times_changed();
    return 0;
  }
  return EINVAL;
}

/* The events registration r would report at `now` (0 for none). */
static uint32_t reg_ready(const struct epoll_reg *r, uint64_t now) {
  if (r->disabled) return 0;
  uint32_t want = (r->events & ~(uint32_t)(EPOLLET | EPOLLONESHOT | EPOLLWAKEUP | EPOLLEXCLUSIVE)) | EPOLLERR | EPOLLHUP;
  uint32_t got = net_file_poll(r->file, now) & want;
  if (got == 0) return 0;
  if ((r->events & EPOLLET) && net_file_gen(r->file, now, r->events) == r->seen_gen) return 0;
  return got;
}

uint32_t net_epoll_poll(struct net_file *f, uint64_t now) {
  struct net_epoll *ep = f->obj;
  for (unsigned i = 0; i < ep->n; i++)
    if (reg_ready(&ep->regs[i], now)) return EPOLLIN | EPOLLRDNORM;
  return 0;
}

uint64_t net_epoll_next_change(struct net_file *f, uint64_t now) {
  struct net_epoll *ep = f->obj;
  uint64_t t = DETSIM_NO_DEADLINE;
  for (unsigned i = 0; i < ep->n; i++) {
    uint64_t x = net_file_next_change(ep->regs[i].file, now);
    if (x < t) t = x;
  }
  return t;
}

struct epoll_wait_arg { struct net_file *f; };
static bool epoll_ready(void *arg) {
  return net_epoll_poll(((struct epoll_wait_arg *)arg)->f, detsim__now_ns()) != 0;
}
static uint64_t epoll_next(void *arg) {
  return net_epoll_next_change(((struct epoll_wait_arg *)arg)->f, detsim__now_ns());
}

int net_epoll_wait(struct net_file *epf, struct epoll_event *events, int maxevents, uint64_t deadline) {
  struct net_epoll *ep = epf->obj;
  if (maxevents <= 0) {
    errno = EINVAL;
    return -1;
  }
  struct epoll_wait_arg a = { epf };
  if (!epoll_ready(&a)) {
    int r = net_wait(DETSIM_EV_net_epoll_wait, epf, epoll_ready, epoll_next, &a, deadline);
    if (r == EINTR) {
      errno = EINTR;
      return -1;
    }
    if (r != 0) return 0;
  }
  uint64_t now = detsim__now_ns();
  int out = 0;
  unsigned n = ep->n;
  unsigned start = n ? ep->cursor % n : 0;
  unsigned last = start;
  for (unsigned k = 0; k < n && out < maxevents; k++) {
    unsigned i = (start + k) % n;
    struct epoll_reg *r = &ep->regs[i];
    uint32_t got = reg_ready(r, now);
    if (!got) continue;
    events[out].events = got;
    events[out].data = r->data;
    out++;
    last = i + 1;
    if (r->events & EPOLLET) r->seen_gen = net_file_gen(r->file, now, r->events);
    if (r->events & EPOLLONESHOT) r->disabled = true;
  }
  ep->cursor = last;
  return out;
}
