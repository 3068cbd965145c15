/* select and pselect over simulated descriptors, with the kernel's reading of
 * the sets.
 *
 * The kernel does not know FD_SETSIZE: it reads and writes nfds bits of the
 * caller's arrays (whole longs), clamped to the size of the process's
 * descriptor table (/proc/self/status FDSize).  A program that allocates a
 * larger set and passes nfds > 1024 works natively, so the sets here are bit
 * arrays of nfds bits, never fd_set (FD_ISSET past 1024 is out of bounds and
 * aborts under fortify).  A bit set on a descriptor that is not open is EBADF
 * inside the table and ignored past it, as in the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "net/net.h"
#include "intercept/intercept.h"

#define WORD_BITS (CHAR_BIT * sizeof(unsigned long))

static bool bit_get(const unsigned long *set, int fd) {
  return set && (set[(unsigned)fd / WORD_BITS] >> ((unsigned)fd % WORD_BITS) & 1ul);
}

static void bit_set(unsigned long *set, int fd) {
  set[(unsigned)fd / WORD_BITS] |= 1ul << ((unsigned)fd % WORD_BITS);
}

/* The kernel's descriptor table size (fdt->max_fds), as /proc shows it. */
static int fd_table_size(void) {
  int fd = REAL(open)("/proc/self/status", O_RDONLY | O_CLOEXEC);
  CHECK(fd >= 0);
  char buf[4096];
  ssize_t n = REAL(read)(fd, buf, sizeof buf - 1);
  REAL(close)(fd);
  CHECK(n > 0);
  buf[n] = '\0';
  const char *p = strstr(buf, "\nFDSize:");
  CHECK(p != NULL);
  return atoi(p + strlen("\nFDSize:"));
}

static bool fd_open(int fd) {
  return net_fd_get(fd) != NULL || REAL(fcntl)(fd, F_GETFD) >= 0;
}

/* How many bits of the sets the kernel reads: nfds, clamped to the table;
 * -1 (EBADF) when a bit names a descriptor inside the table that is not open. */
static int bits_read(int nfds, const unsigned long *rd, const unsigned long *wr, const unsigned long *ex) {
  int table = -1;
  if (nfds > FD_SETSIZE) {
    table = fd_table_size();
    if (nfds > table) nfds = table;
  }
  for (int fd = 0; fd < nfds; fd++) {
    if (!bit_get(rd, fd) && !bit_get(wr, fd) && !bit_get(ex, fd)) continue;
    if (fd_open(fd)) continue;
    if (table < 0) table = fd_table_size();
    if (fd >= table) return table; /* past the table: not read */
    errno = EBADF;
    return -1;
  }
  return nfds;
}

bool net_select_has_sim(int nfds, const void *rd, const void *wr, const void *ex) {
  if (nfds < 0) return false;
  /* Past 1024 the caller's sets are only as long as the kernel would read. */
  if (nfds > FD_SETSIZE && nfds > fd_table_size()) nfds = fd_table_size();
  for (int fd = 0; fd < nfds && fd < DETSIM_NET_FD_NUMBER_MAX; fd++) {
    if (bit_get(rd, fd) || bit_get(wr, fd) || bit_get(ex, fd)) {
      if (net_fd_get(fd) != NULL) return true;
    }
  }
  return false;
}

/* select's sets as Linux maps them onto poll bits. */
#define SEL_IN (POLLRDNORM | POLLRDBAND | POLLIN | POLLHUP | POLLERR)
#define SEL_OUT (POLLWRBAND | POLLWRNORM | POLLOUT | POLLERR)
#define SEL_EX (POLLPRI)

int net_select(int nfds, void *rd_, void *wr_, void *ex_, uint64_t deadline) {
  unsigned long *rd = rd_, *wr = wr_, *ex = ex_;
  if (nfds < 0) {
    errno = EINVAL;
    return -1;
  }
  int n = bits_read(nfds, rd, wr, ex);
  if (n < 0) return -1;
  struct pollfd *fds = calloc((size_t)n + 1, sizeof *fds);
  CHECK(fds != NULL);
  unsigned long polled = 0;
  for (int fd = 0; fd < n; fd++) {
    short ev = 0;
    if (bit_get(rd, fd)) ev |= POLLIN | POLLRDNORM;
    if (bit_get(wr, fd)) ev |= POLLOUT | POLLWRNORM;
    if (bit_get(ex, fd)) ev |= POLLPRI;
    if (!ev) continue;
    fds[polled].fd = fd;
    fds[polled].events = ev;
    polled++;
  }
  if (net_poll(fds, polled, deadline) < 0) {
    free(fds);
    return -1; /* EINTR */
  }
  for (unsigned long i = 0; i < polled; i++) {
    if (fds[i].revents & POLLNVAL) {
      free(fds);
      errno = EBADF;
      return -1;
    }
  }
  /* The kernel writes back whole longs covering the bits it read. */
  size_t bytes = ((size_t)n + WORD_BITS - 1) / WORD_BITS * sizeof(unsigned long);
  if (rd) memset(rd, 0, bytes);
  if (wr) memset(wr, 0, bytes);
  if (ex) memset(ex, 0, bytes);
  int count = 0;
  for (unsigned long i = 0; i < polled; i++) {
    short r = fds[i].revents, e = fds[i].events;
    if (rd && (e & POLLIN) && (r & SEL_IN)) { bit_set(rd, fds[i].fd); count++; }
    if (wr && (e & POLLOUT) && (r & SEL_OUT)) { bit_set(wr, fds[i].fd); count++; }
    if (ex && (e & POLLPRI) && (r & SEL_EX)) { bit_set(ex, fds[i].fd); count++; }
  }
  free(fds);
  return count;
}
