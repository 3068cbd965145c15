/* /dev/urandom and /dev/random: endless bytes from the seed.
 *
 * Opened with open or openat they are a simulated descriptor (a net_file of
 * kind NET_DEVRANDOM, net.h): read and readv draw from the seed's
 * "devrandom" stream, write is accepted and mixes nothing in (as an
 * unprivileged write to the real device credits no entropy), poll and
 * epoll find them always readable and writable, and the reads are yield
 * points in the history like any simulated descriptor's.  Opened with fopen
 * they are a stdio cookie stream over the same stream (its fileno is -1).
 *
 * The stream is of its own: reading random bytes never moves a scheduling
 * or network draw, and in a world each node draws its own.  A thread
 * outside the simulation gets real bytes (it may not touch the stream).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "core/core.h"
#include "machine/machine.h"
#include "net/net.h"
#include "intercept/intercept.h"
#include "world/world.h"

struct devrandom {
  int accmode; /* O_RDONLY, O_WRONLY or O_RDWR */
};

static struct detsim_rng stream;
static bool stream_ready;

void detsim__devrandom_fill(void *buf, size_t len) {
  if (!stream_ready) {
    char label[64];
    detsim__world_label(label, sizeof label, "devrandom");
    detsim__rng_init(&stream, detsim__seed_child(detsim__seed(), label));
    stream_ready = true;
  }
  uint8_t *p = buf;
  while (len > 0) {
    uint64_t x = detsim__rng_next(&stream);
    size_t n = len < sizeof x ? len : sizeof x;
    memcpy(p, &x, n);
    p += n;
    len -= n;
  }
}

/* Real bytes for a thread outside the simulation. */
static void fill_any(void *buf, size_t len) {
  if (detsim__self() != NULL) {
    detsim__devrandom_fill(buf, len);
    return;
  }
  uint8_t *p = buf;
  while (len > 0) {
    ssize_t r = REAL(getrandom)(p, len, 0);
    if (r <= 0) continue; /* EINTR: getrandom of the urandom pool never fails otherwise */
    p += r;
    len -= (size_t)r;
  }
}

int detsim__devrandom_open(int accmode, bool nonblock, bool cloexec) {
  struct devrandom *d = detsim__net_calloc(1, sizeof *d);
  CHECK(d != NULL);
  d->accmode = accmode;
  return net_fd_open(NET_DEVRANDOM, d, nonblock, cloexec, NULL);
}

int detsim__devrandom_accmode(const struct net_file *f) {
  CHECK_EQ(f->kind, NET_DEVRANDOM);
  return ((const struct devrandom *)f->obj)->accmode;
}

static ssize_t bad_fd(void) {
  errno = EBADF;
  return -1;
}

ssize_t detsim__devrandom_readv(struct net_file *f, const struct iovec *iov, int iovcnt) {
  if (detsim__devrandom_accmode(f) == O_WRONLY) return bad_fd();
  uint64_t total = 0;
  for (int i = 0; i < iovcnt; i++) {
    fill_any(iov[i].iov_base, iov[i].iov_len);
    total += iov[i].iov_len;
  }
  return (ssize_t)total;
}

ssize_t detsim__devrandom_writev(struct net_file *f, const struct iovec *iov, int iovcnt) {
  if (detsim__devrandom_accmode(f) == O_RDONLY) return bad_fd();
  return (ssize_t)net_iov_total(iov, iovcnt);
}

void detsim__devrandom_release(struct net_file *f) { detsim__net_free(f->obj); }

/* ---- fopen: a cookie stream ---- */

static ssize_t cookie_read(void *cookie, char *buf, size_t len) {
  (void)cookie;
  detsim__yield_aux(DETSIM_EV_random, NULL, 0, (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len));
  fill_any(buf, len);
  return (ssize_t)len;
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t len) {
  (void)cookie;
  (void)buf;
  return (ssize_t)len;
}

static int cookie_close(void *cookie) {
  (void)cookie;
  return 0;
}

FILE *detsim__devrandom_fopen(const char *mode) {
  cookie_io_functions_t io = { .read = cookie_read, .write = cookie_write, .seek = NULL, .close = cookie_close };
  return fopencookie(NULL, mode, io);
}
