/* The simulated descriptor table, and what every network module shares
 * (waiting on virtual time, reports, the network's seeded stream).
 *
 * Which numbers: a simulated descriptor's number is a real descriptor too, a
 * placeholder opened on /dev/null with O_PATH (read, write and poll on it
 * fail with EBADF/POLLNVAL in the kernel).  The kernel hands out its number,
 * so
 *  - it never collides with a real descriptor: the kernel owns the number
 *    until we close the placeholder;
 *  - it is the number Linux would give a real socket (the lowest free one),
 *    so select()'s FD_SETSIZE and programs that print descriptors behave as
 *    they would natively;
 *  - dup, dup2 and F_DUPFD on simulated descriptors follow the kernel's
 *    number rules by doing the same to the placeholder;
 *  - RLIMIT_NOFILE limits simulated descriptors as it limits real ones;
 *  - a call that bypasses the simulation (an uninstrumented syscall on a
 *    simulated descriptor) fails loudly in the kernel instead of reaching
 *    some unrelated file.
 * A descriptor is simulated when fd_table[number] is set.  A call on a real
 * descriptor costs one load and a compare before the real function.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "time/time.h"
#include "machine/machine.h"
#include "net/net.h"
#include "world/world.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "signal/signal.h"
#include "fuzz/fuzz.h"

static struct net_file *fd_table[DETSIM_NET_FD_NUMBER_MAX];
static bool fd_cloexec_bits[DETSIM_NET_FD_NUMBER_MAX];
static unsigned open_fds;      /* simulated descriptors open */
static unsigned live_objects;  /* files alive */
static uint32_t next_file_id = 1;

struct net_file *net_fd_get(int fd) {
  if ((unsigned)fd >= DETSIM_NET_FD_NUMBER_MAX) return NULL;
  return fd_table[fd];
}

struct net_file *net_file_new(enum net_kind kind, void *obj) {
  if (live_objects >= DETSIM_NET_MAX_OBJECTS) {
    net_limit("net_max_objects", DETSIM_NET_MAX_OBJECTS, "too many simulated sockets, pipes and epolls alive");
    errno = ENFILE;
    return NULL;
  }
  struct net_file *f = detsim__net_calloc(1, sizeof *f);
  CHECK(f != NULL);
  f->kind = kind;
  f->obj = obj;
  f->id = next_file_id++;
  f->node = detsim__host_index;
  live_objects++;
  return f;
}

/* A placeholder descriptor numbered >= min_fd (the lowest free such). */
static int placeholder(int min_fd) {
  int fd = REAL(open)("/dev/null", O_PATH | O_CLOEXEC);
  if (fd < 0) return -1;
  if (fd >= min_fd) return fd;
  int d = REAL(fcntl)(fd, F_DUPFD_CLOEXEC, min_fd);
  int e = errno;
  REAL(close)(fd);
  errno = e;
  return d;
}

int net_fd_alloc(struct net_file *f, bool cloexec, int min_fd) {
  if (open_fds >= detsim__opt.net_max_fds) {
    net_limit("net_max_fds", detsim__opt.net_max_fds, "too many simulated descriptors open at once (EMFILE)");
    errno = EMFILE;
    return -1;
  }
  int fd = placeholder(min_fd);
  if (fd < 0) return -1; /* EMFILE from the kernel: RLIMIT_NOFILE */
  if (fd >= DETSIM_NET_FD_NUMBER_MAX) {
    REAL(close)(fd);
    net_limit("net_fd_number_max", DETSIM_NET_FD_NUMBER_MAX, "a simulated descriptor's number would be too high (EMFILE)");
    errno = EMFILE;
    return -1;
  }
  if (fd_table[fd] != NULL) {
    /* The kernel reused a number we still held: something closed our
     * placeholder behind the simulation's back (fclose after fdopen,
     * close_range).  Forget the stale descriptor; the new placeholder stays. */
    net_unsupported("a simulated descriptor closed outside the simulation", "its number was reused");
    net_fd_unmap(fd);
  }
  fd_table[fd] = f;
  fd_cloexec_bits[fd] = cloexec;
  f->refs++;
  open_fds++;
  return fd;
}

int net_fd_open(enum net_kind kind, void *obj, bool nonblock, bool cloexec, struct net_file **out) {
  struct net_file *f = net_file_new(kind, obj);
  int fd = -1;
  if (f != NULL) {
    f->nonblock = nonblock;
    fd = net_fd_alloc(f, cloexec, 0);
    if (fd < 0) net_file_discard(f);
  }
  if (fd < 0) {
    int e = errno;
    detsim__net_free(obj);
    errno = e;
    return -1;
  }
  if (out != NULL) *out = f;
  return fd;
}

void net_file_release(struct net_file *f) {
  CHECK_EQ(f->refs, 0);
  CHECK_EQ(f->holds, 0);
  net_epoll_forget(f);
  switch (f->kind) {
  case NET_SOCK: net_sock_release(f->obj); break;
  case NET_PIPE_READ:
  case NET_PIPE_WRITE: net_pipe_release(f); break;
  case NET_EVENTFD: net_eventfd_release(f); break;
  case NET_TIMERFD: net_timerfd_release(f); break;
  case NET_SIGNALFD: net_signalfd_release(f); break;
  case NET_DEVRANDOM: detsim__devrandom_release(f); break;
  case NET_EPOLL: net_epoll_release(f); break;
  case NET_INOTIFY: break; /* released by its registration (net_inotify_release) */
  case NET_PTY_MASTER:
  case NET_PTY_SLAVE: net_pty_release(f); break;
  }
  CHECK_GE(live_objects, 1);
  live_objects--;
  detsim__net_free(f);
}

void net_file_discard(struct net_file *f) {
  CHECK_EQ(f->refs, 0);
  CHECK_GE(live_objects, 1);
  live_objects--;
  detsim__net_free(f);
}

/* Forgets descriptor `fd` in the table (the placeholder stays). */
static void unmap(int fd) {
  struct net_file *f = fd_table[fd];
  CHECK(f != NULL);
  fd_table[fd] = NULL;
  fd_cloexec_bits[fd] = false;
  CHECK_GE(open_fds, 1);
  open_fds--;
  CHECK_GE(f->refs, 1);
  if (--f->refs == 0 && f->holds == 0) net_file_release(f);
}

void net_fd_unmap(int fd) { unmap(fd); }

void net_file_hold(struct net_file *f) { f->holds++; }

void net_file_put(struct net_file *f) {
  CHECK_GE(f->holds, 1);
  if (--f->holds == 0 && f->refs == 0) net_file_release(f);
}

int net_fd_close(int fd) {
  unmap(fd);
  return REAL(close)(fd);
}

int net_fd_dup(int oldfd, int newfd, int flags, int min_fd, bool at_newfd) {
  struct net_file *f = net_fd_get(oldfd);
  CHECK(f != NULL);
  bool cloexec = (flags & O_CLOEXEC) != 0;
  if (!at_newfd) {
    if (open_fds >= detsim__opt.net_max_fds) {
      net_limit("net_max_fds", detsim__opt.net_max_fds, "too many simulated descriptors open at once (EMFILE)");
      errno = EMFILE;
      return -1;
    }
    int fd = REAL(fcntl)(oldfd, F_DUPFD_CLOEXEC, min_fd);
    if (fd < 0) return -1;
    if (fd >= DETSIM_NET_FD_NUMBER_MAX) {
      REAL(close)(fd);
      errno = EMFILE;
      return -1;
    }
    if (fd_table[fd] != NULL) {
      net_unsupported("a simulated descriptor closed outside the simulation", "its number was reused");
      net_fd_unmap(fd);
    }
    fd_table[fd] = f;
    fd_cloexec_bits[fd] = cloexec;
    f->refs++;
    open_fds++;
    return fd;
  }
  if ((unsigned)newfd >= DETSIM_NET_FD_NUMBER_MAX) {
    errno = EBADF;
    return -1;
  }
  if (newfd == oldfd) return newfd;
  if (fd_table[newfd] == NULL && open_fds >= detsim__opt.net_max_fds) {
    net_limit("net_max_fds", detsim__opt.net_max_fds, "too many simulated descriptors open at once (EMFILE)");
    errno = EMFILE;
    return -1;
  }
  /* dup3 closes whatever newfd was (real or simulated), as the kernel does. */
  if (REAL(dup3)(oldfd, newfd, O_CLOEXEC) < 0) return -1;
  if (fd_table[newfd] != NULL) unmap(newfd);
  fd_table[newfd] = f;
  fd_cloexec_bits[newfd] = cloexec;
  f->refs++;
  open_fds++;
  return newfd;
}

bool net_fd_cloexec(int fd) { return fd_cloexec_bits[fd]; }
void net_fd_set_cloexec(int fd, bool on) { fd_cloexec_bits[fd] = on; }

/* ---- readiness by kind ---- */

uint32_t net_file_poll(struct net_file *f, uint64_t now) {
  switch (f->kind) {
  case NET_SOCK: return net_sock_poll(f->obj, now);
  case NET_PIPE_READ:
  case NET_PIPE_WRITE: return net_pipe_poll(f, now);
  case NET_EVENTFD: return net_eventfd_poll(f);
  case NET_TIMERFD: return net_timerfd_poll(f, now);
  case NET_SIGNALFD: return net_signalfd_poll(f);
  case NET_DEVRANDOM: return EPOLLIN | EPOLLRDNORM | EPOLLOUT | EPOLLWRNORM; /* endless, and takes any write */
  case NET_EPOLL: return net_epoll_poll(f, now);
  case NET_INOTIFY: return net_inotify_poll(f);
  case NET_PTY_MASTER:
  case NET_PTY_SLAVE: return net_pty_poll(f);
  }
  return 0;
}

uint64_t net_file_next_change(struct net_file *f, uint64_t now) {
  switch (f->kind) {
  case NET_SOCK: return net_sock_next_change(f->obj, now);
  case NET_EPOLL: return net_epoll_next_change(f, now);
  case NET_TIMERFD: return net_timerfd_next_change(f, now);
  case NET_SIGNALFD: return net_signalfd_next_change();
  default: return DETSIM_NO_DEADLINE; /* pipes and eventfds have no latency */
  }
}

uint64_t net_file_gen(struct net_file *f, uint64_t now, uint32_t events) {
  switch (f->kind) {
  case NET_SOCK: return f->changes + net_sock_gen(f->obj, now, events);
  case NET_PIPE_READ:
  case NET_PIPE_WRITE: return f->changes + net_pipe_gen(f);
  case NET_TIMERFD: return f->changes + net_timerfd_gen(f, now);
  case NET_SIGNALFD: return f->changes + net_signalfd_gen();
  case NET_INOTIFY: return net_inotify_gen(f);
  case NET_PTY_MASTER:
  case NET_PTY_SLAVE: return f->changes + net_pty_gen(f);
  default: return f->changes;
  }
}

/* ---- waiting ---- */

/* signal(7): after a handler with SA_RESTART, a blocking read, write,
 * accept or connect starts again; poll, select, epoll_wait never do, nor
 * does a call with a timeout (SO_RCVTIMEO, SO_SNDTIMEO). */
static bool restartable(enum detsim_event_kind kind, uint64_t deadline) {
  return deadline == DETSIM_NO_DEADLINE && kind != DETSIM_EV_net_poll && kind != DETSIM_EV_net_epoll_wait;
}

int net_wait(enum detsim_event_kind kind, const void *obj, bool (*ready)(void *),
             uint64_t (*next)(void *), void *arg, uint64_t deadline) {
  if (detsim__self() == NULL) return ready(arg) ? 0 : EAGAIN;
  for (;;) {
    if (ready(arg)) return 0;
    if (detsim__now_ns() >= deadline) return ETIMEDOUT;
    int r = next ? detsim__block_follow(kind, obj, ready, next, arg, deadline)
                 : detsim__block_intr(kind, obj, ready, arg, deadline); /* nothing travels: a pipe */
    if (r == 0) return 0;
    if (r == EINTR && !(restartable(kind, deadline) && detsim__restartable())) return EINTR;
  }
}

/* A thread blocked in a network wait computed its wake time from what was
 * in flight when it blocked: something sent later (data, FIN, RST, a
 * handshake, a datagram, a timer set) must make it look again, or it would
 * sleep through the arrival and the scheduler, seeing no deadline, would
 * call it a deadlock.  In this node the scheduler recomputes the waits'
 * times before it next jumps in time; another node is told through the
 * world (it recomputes when the world comes to it, which is no later than
 * `at`). */
void net_wake_node(unsigned node, uint64_t at) {
  if (at == DETSIM_NO_DEADLINE) return;
  if (!detsim__in_world) {
    /* Due now: the waits' predicates see it when the scheduler next picks. */
    if (at > detsim__now_ns()) detsim__sched_times_changed();
    return;
  }
  /* `node` is a host: every process on it may wait for this (a forked
   * child shares its parent's descriptors). */
  detsim__world_post_host(node, at);
}

void net_wake_file(struct net_file *f) {
  f->changes++;
  net_wake_node(f->node, detsim__now_ns());
}

/* ---- reports ---- */

/* Each distinct `what` is reported once per run. */
#define NET_REPORTS_MAX 64
static char *reported[NET_REPORTS_MAX];
static unsigned reported_n;

/* True the first time `what` is seen (kept as a copy: callers format it). */
static bool first_report(const char *what) {
  for (unsigned i = 0; i < reported_n; i++)
    if (strcmp(reported[i], what) == 0) return false;
  if (reported_n < NET_REPORTS_MAX) {
    char *copy = strdup(what);
    if (copy != NULL) reported[reported_n++] = copy;
  }
  return true;
}

void net_unsupported(const char *what, const char *detail) {
  if (!first_report(what)) return;
  detsim__msg("warning: %s is not simulated (%s); the call fails with an errno instead of reaching the real kernel",
              what, detail);
}

void net_limit(const char *name, uint64_t value, const char *why) {
  if (!first_report(name)) return;
  detsim__msg("limit %s=%" PRIu64 " reached: %s", name, value, why);
}

void net_sigpipe(void) {
  /* Raised by the write itself and taken before it returns, as the kernel
   * does: a handler runs now, a default action ends the run as a crash. */
  detsim__sig_raise_sync(SIGPIPE, "a write to a connection the peer closed");
}

void net_sigurg(const struct net_file *f) {
  /* send_sigurg: to the owner F_SETOWN named; only this process can be
   * one (F_SETOWN refuses others). */
  if (f->owner == 0) return;
  if (f->owner == detsim__proc_pid() || f->owner == -detsim__proc_pgid())
    detsim__sig_send(NULL, SIGURG, SI_KERNEL, DETSIM_SIGVAL_NONE);
}

void net_result(const void *obj, long result) {
  detsim_thread *self = detsim__self();
  if (self == NULL || self->suppress) return;
  detsim__event(DETSIM_EV_net_result, self, obj, net__pc, (uint32_t)result);
}

uintptr_t net__pc;

void net_enter(enum detsim_event_kind kind, const struct net_file *f, uint32_t aux) {
  detsim__yield_aux(kind, f, net__pc, aux);
}

void net_close_all(void) {
  detsim__suppress_begin();
  for (int fd = 0; fd < DETSIM_NET_FD_NUMBER_MAX; fd++)
    if (fd_table[fd] != NULL) net_fd_close(fd);
  detsim__suppress_end();
}

/* ---- the network's seeded stream ---- */

static struct detsim_rng net_rng;
static bool net_rng_ready;

uint64_t net_draw(void) {
  if (!net_rng_ready) {
    char label[64];
    /* Each node of a world draws its own links. */
    detsim__world_label(label, sizeof label, "network");
    detsim__rng_init(&net_rng, detsim__seed_child(detsim__seed(), label));
    net_rng_ready = true;
  }
  return detsim__rng_next(&net_rng);
}

/* Log-uniform in [lo, hi] from the high bits of a draw x (the low bits say
 * whether the link has the property at all). */
static double log_uniform_of(uint64_t x, double lo, double hi) {
  double u = (double)(x >> 11) * 0x1.0p-53;
  return lo * __builtin_exp(u * __builtin_log(hi / lo));
}

/* A link time log-uniform in [1 us, max]: short and long ones both common. */
static uint64_t link_ns_of(uint64_t x, uint64_t max) {
  return (double)max <= 1000.0 ? max : (uint64_t)log_uniform_of(x, 1000.0, (double)max);
}

/* A link's property: in a world's choice mode one byte b of the world's
 * choices when the property can be there at all, read as the draw
 * b << 56 | (b & 3) (its low bits say whether the link has it, its high
 * bits how much), so the fuzzer's input sets each connection's latency,
 * jitter and bandwidth; else the network's stream. */
static uint64_t link_draw(bool possible) {
  uint8_t b;
  if (possible && __builtin_expect(detsim__choices_on, 0) && detsim__world_hosts() && detsim__choices_next(&b))
    return (uint64_t)b << 56 | (b & 3u);
  return net_draw();
}

uint64_t net_segment_jitter(uint64_t max) {
  uint64_t v;
  if (__builtin_expect(detsim__choices_on, 0) && detsim__world_hosts() && detsim__choices_below(max + 1, &v)) return v;
  return net_draw() % (max + 1);
}

uint64_t net_jitter_draw(void) {
  uint64_t max = detsim__opt.net_jitter_max_ns;
  uint64_t x = link_draw(max != 0);
  if (max == 0 || (x & 1) == 0) return 0; /* half the links: no jitter */
  return link_ns_of(x, max);
}

/* The wire's time for 1 KiB: none for a quarter of the links, else a
 * bandwidth log-uniform between net_bandwidth_min and 10 Gbit/s. */
uint64_t net_bandwidth_draw(void) {
  uint64_t min = detsim__opt.net_bandwidth_min;
  uint64_t x = link_draw(min != 0 && min < DETSIM_NET_BANDWIDTH_MAX);
  if (min == 0 || (x & 3) == 0 || min >= DETSIM_NET_BANDWIDTH_MAX) return 0;
  return (uint64_t)(1024.0 * 1e9 / log_uniform_of(x, (double)min, (double)DETSIM_NET_BANDWIDTH_MAX));
}

uint64_t net_latency_draw(void) {
  uint64_t max = detsim__opt.net_latency_max_ns;
  uint64_t x = link_draw(max != 0);
  if (max == 0 || (x & 3) == 0) return 0; /* a quarter of links: no latency */
  return link_ns_of(x, max);
}

/* ---- fork (world_proc.c) ---- */

void net_fork_share(int delta) {
  /* The child's table is a copy of this one: each file gets a reference
   * for it (or gives it back when the fork failed). */
  for (int fd = 0; fd < DETSIM_NET_FD_NUMBER_MAX; fd++) {
    struct net_file *f = fd_table[fd];
    if (f == NULL) continue;
    if (delta > 0) {
      f->refs++;
    } else {
      CHECK_GE(f->refs, 2);
      f->refs--;
    }
  }
}

void net_fork_child(void) {
  /* The child draws its own links (its stream is labelled by its slot). */
  net_rng_ready = false;
}

/* ---- exec (proc_exec.c) ---- */

void net_exec_each(net_exec_visit visit, void *arg) {
  for (int fd = 0; fd < DETSIM_NET_FD_NUMBER_MAX; fd++)
    if (fd_table[fd] != NULL) visit(fd, fd_table[fd], fd_cloexec_bits[fd], arg);
}

/* The new image's table starts empty: what it adopts is the old image's
 * (the references came with it: an exec adds none).  Each file counts
 * as alive here once, however many descriptors name it. */
static bool in_table(const struct net_file *f) {
  for (int fd = 0; fd < DETSIM_NET_FD_NUMBER_MAX; fd++)
    if (fd_table[fd] == f) return true;
  return false;
}

void net_exec_adopt(int fd, struct net_file *f) {
  CHECK((unsigned)fd < DETSIM_NET_FD_NUMBER_MAX);
  CHECK(fd_table[fd] == NULL);
  CHECK_GE(f->refs, 1);
  if (!in_table(f)) live_objects++;
  fd_table[fd] = f;
  fd_cloexec_bits[fd] = false;
  open_fds++;
}

void net_exec_drop(struct net_file *f) {
  /* A close-on-exec descriptor closes as close() closes it: its reference
   * goes; the last one releases the file (a pipe's reader sees EOF).  The
   * adoptions came first, so a file still named here is alive here. */
  CHECK_GE(f->refs, 1);
  if (--f->refs > 0 || f->holds > 0) return;
  CHECK(!in_table(f));
  live_objects++; /* net_file_release counts it out */
  net_file_release(f);
}
