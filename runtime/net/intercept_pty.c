/* Pseudo-terminals are not simulated yet: creating one fails loudly.
 *
 * A pty pair would be the kernel's (a real /dev/ptmx), whose line
 * discipline, timing and blocking the simulation would not see, so every
 * way to make one (posix_openpt, getpt, openpty, forkpty, open of
 * /dev/ptmx: machine_files.c) reports the call by name and fails with
 * ENOENT, as on a machine without ptys.  A pty the program inherited (a
 * real terminal on its descriptors) stays the kernel's.
 *
 * isatty, tcgetattr and tcsetattr on a simulated descriptor answer as
 * Linux does for a socket, pipe or eventfd (ENOTTY): glibc asks with an
 * ioctl no interposition sees, which would reach the placeholder.
 */
#include <errno.h>
#include <pty.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include "core/core.h"
#include "net/net.h"
#include "intercept/intercept.h"

int net_pty_refuse(const char *call) {
  net_unsupported(call, "pseudo-terminals are not simulated yet; the simulated machine has no /dev/ptmx");
  errno = ENOENT;
  return -1;
}

/* The program's own call (the runtime's, and calls before the run, reach the kernel). */
static bool program_call(void) { return detsim__running() && !detsim__internal() && detsim__self() != NULL; }

DETSIM_EXPORT int __detsim_posix_openpt(int flags) {
  if (!program_call()) return REAL(posix_openpt)(flags);
  return net_pty_refuse("posix_openpt");
}
DETSIM_INTERCEPT_ALIAS(posix_openpt)

DETSIM_EXPORT int __detsim_getpt(void) {
  if (!program_call()) return REAL(getpt)();
  return net_pty_refuse("getpt");
}
DETSIM_INTERCEPT_ALIAS(getpt)

DETSIM_EXPORT int __detsim_openpty(int *amaster, int *aslave, char *name, const struct termios *t,
                                   const struct winsize *ws) {
  if (!program_call()) return REAL(openpty)(amaster, aslave, name, t, ws);
  return net_pty_refuse("openpty");
}
DETSIM_INTERCEPT_ALIAS(openpty)

DETSIM_EXPORT pid_t __detsim_forkpty(int *amaster, char *name, const struct termios *t, const struct winsize *ws) {
  if (!program_call()) return REAL(forkpty)(amaster, name, t, ws);
  return net_pty_refuse("forkpty");
}
DETSIM_INTERCEPT_ALIAS(forkpty)

DETSIM_EXPORT int __detsim_isatty(int fd) {
  if (net_fd_get(fd) == NULL) return REAL(isatty)(fd);
  errno = ENOTTY;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(isatty)

DETSIM_EXPORT int __detsim_tcgetattr(int fd, struct termios *t) {
  if (net_fd_get(fd) == NULL) return REAL(tcgetattr)(fd, t);
  errno = ENOTTY;
  return -1;
}
DETSIM_INTERCEPT_ALIAS(tcgetattr)

DETSIM_EXPORT int __detsim_tcsetattr(int fd, int action, const struct termios *t) {
  if (net_fd_get(fd) == NULL) return REAL(tcsetattr)(fd, action, t);
  errno = ENOTTY;
  return -1;
}
DETSIM_INTERCEPT_ALIAS(tcsetattr)
