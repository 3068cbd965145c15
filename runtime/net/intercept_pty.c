/* Pseudo-terminals' calls (net_pty.c simulates the pairs): posix_openpt,
 * getpt, grantpt, unlockpt, ptsname(_r), openpty, ttyname(_r), and isatty, tcgetattr,
 * tcsetattr on simulated descriptors (glibc asks those with ioctls no
 * interposition sees, which would reach the placeholder: a socket, pipe
 * or eventfd is no terminal, ENOTTY as Linux says).  Opening /dev/ptmx
 * and /dev/pts/N is machine_files.c's.  forkpty is not simulated: it is
 * reported by name and fails with ENOSYS.  Real descriptors (a terminal
 * the program inherited) stay the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "core/core.h"
#include "net/net.h"
#include "trace/trace.h"
#include "intercept/intercept.h"

#define PC() (net__pc = (uintptr_t)__builtin_return_address(0))

/* A simulated descriptor's file, held, after its yield point (NULL: a real one). */
static struct net_file *enter(int fd, uint32_t aux) {
  struct net_file *f = net_fd_get(fd);
  if (f == NULL) return NULL;
  net_enter(DETSIM_EV_net_sockopt, f, aux);
  f = net_fd_get(fd);
  if (f != NULL) net_file_hold(f);
  return f;
}

static long leave(struct net_file *f, long r) {
  int e = errno;
  net_result(f, r < 0 ? -e : r);
  net_file_put(f);
  errno = e;
  return r;
}

static long fail(int e) {
  errno = e;
  return -1;
}

/* The program's own call (the runtime's, and calls before the run, reach the kernel). */
static bool program_call(void) { return detsim__running() && !detsim__internal() && detsim__self() != NULL; }

static int open_master(int flags) {
  if (flags & ~(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)) return (int)fail(EINVAL);
  net_enter(DETSIM_EV_net_socket, NULL, 0);
  int fd = net_pty_open_master(flags);
  net_result(NULL, fd < 0 ? -errno : 0);
  return fd;
}

DETSIM_EXPORT int __detsim_posix_openpt(int flags) {
  PC();
  if (!program_call()) return REAL(posix_openpt)(flags);
  return open_master(flags);
}
DETSIM_INTERCEPT_ALIAS(posix_openpt)

DETSIM_EXPORT int __detsim_getpt(void) {
  PC();
  if (!program_call()) return REAL(getpt)();
  return open_master(O_RDWR);
}
DETSIM_INTERCEPT_ALIAS(getpt)

DETSIM_EXPORT int __detsim_grantpt(int fd) {
  PC();
  struct net_file *f = enter(fd, 0);
  if (f == NULL) return REAL(grantpt)(fd);
  unsigned n;
  int r = net_pty_is(f) && net_pty_index(f, &n) == 0 ? 0 : (int)fail(EINVAL);
  return (int)leave(f, r);
}
DETSIM_INTERCEPT_ALIAS(grantpt)

DETSIM_EXPORT int __detsim_unlockpt(int fd) {
  PC();
  struct net_file *f = enter(fd, 0);
  if (f == NULL) return REAL(unlockpt)(fd);
  int e = net_pty_is(f) ? net_pty_unlock(f, false) : ENOTTY;
  return (int)leave(f, e ? fail(e == ENOTTY ? EINVAL : e) : 0);
}
DETSIM_INTERCEPT_ALIAS(unlockpt)

/* The slave's name of master f: 0 or an errno. */
static int slave_name(struct net_file *f, char *buf, size_t len) {
  unsigned n;
  int e = net_pty_is(f) ? net_pty_index(f, &n) : ENOTTY;
  if (e) return e;
  char name[32];
  snprintf(name, sizeof name, "/dev/pts/%u", n);
  if (strlen(name) + 1 > len) return ERANGE;
  memcpy(buf, name, strlen(name) + 1);
  return 0;
}

DETSIM_EXPORT int __detsim_ptsname_r(int fd, char *buf, size_t len) {
  PC();
  struct net_file *f = enter(fd, 0);
  if (f == NULL) return REAL(ptsname_r)(fd, buf, len);
  int e = buf == NULL ? EINVAL : slave_name(f, buf, len);
  if (e) errno = e;
  leave(f, e ? -1 : 0);
  return e;
}
DETSIM_INTERCEPT_ALIAS(ptsname_r)

DETSIM_EXPORT char *__detsim_ptsname(int fd) {
  static char name[32];
  PC();
  struct net_file *f = enter(fd, 0);
  if (f == NULL) return REAL(ptsname)(fd);
  int e = slave_name(f, name, sizeof name);
  if (e) errno = e;
  leave(f, e ? -1 : 0);
  return e ? NULL : name;
}
DETSIM_INTERCEPT_ALIAS(ptsname)

DETSIM_EXPORT int __detsim_openpty(int *amaster, int *aslave, char *name, const struct termios *t,
                                   const struct winsize *ws) {
  PC();
  if (!program_call()) return REAL(openpty)(amaster, aslave, name, t, ws);
  int m = open_master(O_RDWR | O_NOCTTY);
  if (m < 0) return -1;
  struct net_file *mf = net_fd_get(m);
  unsigned n;
  CHECK(mf != NULL && net_pty_index(mf, &n) == 0);
  net_pty_unlock(mf, false);
  int s = net_pty_open_slave(n, O_RDWR | O_NOCTTY);
  if (s < 0) {
    int e = errno;
    net_fd_close(m);
    errno = e;
    return -1;
  }
  if (t != NULL) net_pty_tcsetattr(mf, TCSAFLUSH, t);
  if (ws != NULL) net_pty_ioctl(mf, TIOCSWINSZ, (void *)ws);
  if (name != NULL) slave_name(mf, name, 32);
  *amaster = m;
  *aslave = s;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(openpty)

DETSIM_EXPORT pid_t __detsim_forkpty(int *amaster, char *name, const struct termios *t, const struct winsize *ws) {
  if (!program_call()) return REAL(forkpty)(amaster, name, t, ws);
  net_unsupported("forkpty", "openpty and fork are simulated; forkpty (and login_tty) not yet");
  errno = ENOSYS;
  return -1;
}
DETSIM_INTERCEPT_ALIAS(forkpty)

/* ttyname_r: a slave's /dev/pts/N, a master's /dev/ptmx (what the
 * kernel's /proc/self/fd link names); 0 or an errno. */
static int tty_name(struct net_file *f, char *buf, size_t len) {
  if (!net_pty_is(f)) return ENOTTY;
  if (buf == NULL) return EINVAL;
  if (f->kind == NET_PTY_SLAVE) {
    unsigned n = net_pty_number(f);
    char name[32];
    snprintf(name, sizeof name, "/dev/pts/%u", n);
    if (strlen(name) + 1 > len) return ERANGE;
    memcpy(buf, name, strlen(name) + 1);
    return 0;
  }
  if (len < sizeof "/dev/ptmx") return ERANGE;
  memcpy(buf, "/dev/ptmx", sizeof "/dev/ptmx");
  return 0;
}

DETSIM_EXPORT int __detsim_ttyname_r(int fd, char *buf, size_t len) {
  PC();
  struct net_file *f = enter(fd, 0);
  if (f == NULL) return REAL(ttyname_r)(fd, buf, len);
  int e = tty_name(f, buf, len);
  if (e) errno = e;
  leave(f, e ? -1 : 0);
  return e;
}
DETSIM_INTERCEPT_ALIAS(ttyname_r)

DETSIM_EXPORT char *__detsim_ttyname(int fd) {
  static char name[32];
  PC();
  struct net_file *f = enter(fd, 0);
  if (f == NULL) return REAL(ttyname)(fd);
  int e = tty_name(f, name, sizeof name);
  if (e) errno = e;
  leave(f, e ? -1 : 0);
  return e ? NULL : name;
}
DETSIM_INTERCEPT_ALIAS(ttyname)

DETSIM_EXPORT int __detsim_isatty(int fd) {
  struct net_file *f = net_fd_get(fd);
  if (f == NULL) return REAL(isatty)(fd);
  if (net_pty_is(f)) return 1;
  errno = ENOTTY;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(isatty)

DETSIM_EXPORT int __detsim_tcgetattr(int fd, struct termios *t) {
  PC();
  struct net_file *f = enter(fd, TCGETS);
  if (f == NULL) return REAL(tcgetattr)(fd, t);
  int e = net_pty_is(f) ? net_pty_tcgetattr(f, t) : ENOTTY;
  return (int)leave(f, e ? fail(e) : 0);
}
DETSIM_INTERCEPT_ALIAS(tcgetattr)

DETSIM_EXPORT int __detsim_tcsetattr(int fd, int action, const struct termios *t) {
  PC();
  struct net_file *f = enter(fd, TCSETS);
  if (f == NULL) return REAL(tcsetattr)(fd, action, t);
  int e = net_pty_is(f) ? net_pty_tcsetattr(f, action, t) : ENOTTY;
  return (int)leave(f, e ? fail(e) : 0);
}
DETSIM_INTERCEPT_ALIAS(tcsetattr)
