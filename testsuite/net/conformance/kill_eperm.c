/* Conformance: kill of a process that exists but is not ours to signal.
 *
 * Linux checks permission before anything else: signal 0 to init (pid 1)
 * or to the parent (here the test driver) from an unprivileged process is
 * EPERM, not ESRCH, and sends nothing.  Run as root natively, the program
 * first gives up its privileges (setuid to nobody) so the rule applies; in
 * the simulation pid 1 and the parent are the virtual ones, which are EPERM.
 */
#include <signal.h>

#include "conf.h"

int main(void) {
  if (getuid() == 0) MUST(setuid(65534) == 0);
  SHOW("kill(1, 0)", kill(1, 0));
  SHOW("kill(1, SIGTERM)", kill(1, SIGTERM));
  SHOW("kill(getppid(), 0)", kill(getppid(), 0));
  SHOW("kill(self, 0)", kill(getpid(), 0));
  return 0;
}
