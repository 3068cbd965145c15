/* Real inotify descriptors in a simulated epoll.
 *
 * An inotify descriptor stays the kernel's (inotify_init1, read and
 * inotify_add_watch go to it), because its events come from the kernel's
 * view of real files: the simulation's files are real files (the disk of
 * runtime/disk/ included).  It can still be watched by a simulated epoll
 * deterministically: the kernel queues an inotify event within the call
 * that causes it, so as long as the files are changed by this simulation
 * (by its threads, one at a time, at points the seed decides) the queue's
 * state is a function of the run's history.  A registration of such a
 * descriptor is a file of kind NET_INOTIFY that asks the kernel, without
 * waiting, whenever the epoll instance's readiness is computed: when a
 * wait starts and each time the scheduler looks at the blocked threads,
 * so a thread that changes a watched file makes the waiter ready at its
 * next yield point.  Edge triggering (EPOLLET) reports when the queue's
 * unread bytes differ from what they were at the last report.
 *
 * What stays outside: changes made by processes outside the simulation
 * (they appear when they happen, like any real file's contents), and
 * events of the runtime's own file accesses (the disk's journal reading a
 * watched file before it is overwritten, in a world at level 3).  Closing
 * the descriptor removes its registrations.  poll and select ask an
 * inotify descriptor only when they start and end, as any real one.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/core.h"
#include "net/net.h"
#include "intercept/intercept.h"

/* Registrations of inotify descriptors alive: closes look only when some are. */
static unsigned watched;

bool net_inotify_is(int fd) {
  char path[64], target[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ssize_t n = REAL(readlink)(path, target, sizeof target - 1);
  if (n < 0) return false;
  target[n] = '\0';
  return strcmp(target, "anon_inode:inotify") == 0;
}

struct net_file *net_inotify_file(int fd) {
  struct net_file *f = net_file_new(NET_INOTIFY, NULL);
  if (f == NULL) return NULL;
  f->real_fd = fd;
  watched++;
  return f;
}

void net_inotify_release(struct net_file *f) {
  CHECK_GE(watched, 1);
  watched--;
  net_file_discard(f);
}

bool net_inotify_any(void) { return watched > 0; }

uint32_t net_inotify_poll(const struct net_file *f) {
  struct pollfd p = { f->real_fd, POLLIN | POLLPRI | POLLOUT | POLLRDNORM, 0 };
  if (REAL(poll)(&p, 1, 0) < 0) return EPOLLERR;
  if (p.revents & POLLNVAL) return EPOLLERR | EPOLLHUP;
  return (uint32_t)(uint16_t)p.revents;
}

uint64_t net_inotify_gen(const struct net_file *f) {
  int n = 0;
  if (REAL(ioctl)(f->real_fd, FIONREAD, &n) < 0) n = 0;
  return f->changes + (uint64_t)n;
}
