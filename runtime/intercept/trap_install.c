/* The run-time net's set-up and its one rule about exec (intercept/intercept.h).
 *
 * trap_syscalls (auto: on in a world's processes, off in a one-process
 * run; never with a sanitizer, whose runtime makes raw calls from the
 * executable's text) and trap_tsc (on; never with a sanitizer either) are
 * read once, here, at the end of the runtime's constructor: after its own
 * threads and handlers exist, before the executable's constructors run.
 */
#include <errno.h>
#include <sys/syscall.h>

#include "limits.h"
#include "core/core.h"
#include "intercept/intercept.h"
#include "sanitize/sanitize.h"
#include "world/world.h"

static bool tsc_on;

void detsim__trap_install(void) {
  static struct detsim_trap_range ranges[DETSIM_TRAP_TEXT_RANGES_MAX];
  int n = detsim__trap_ranges(ranges, DETSIM_TRAP_TEXT_RANGES_MAX);
  bool want_syscalls = detsim__trap_syscalls_wanted(detsim__in_world);
  if (n < 0 && want_syscalls) {
    detsim__msg("error: trap_syscalls: more than %d text segments to allow (limit DETSIM_TRAP_TEXT_RANGES_MAX); "
                "run with trap_syscalls=0", DETSIM_TRAP_TEXT_RANGES_MAX);
    REAL(syscall)(SYS_exit_group, DETSIM_EXIT_USAGE);
  }
  /* Not under a sanitizer: it starts its symbolizer with its own raw fork
   * and exec, which inherit the TSC mode and die at their first rdtsc. */
  if (detsim__opt.trap_tsc && detsim__sanitizer_name() == NULL) tsc_on = detsim__trap_tsc_install();
  if (want_syscalls) detsim__trap_syscalls_install(ranges, n);
}

bool detsim__trap_exec_refused(const char *call, const char *path) {
  /* User dispatch ends with the image; a filter does not. */
  if (detsim__trap_filter_on()) {
    detsim__msg("error: %s(\"%s\"): the run traps raw system calls (DETSIM_OPTIONS=trap_syscalls) with a seccomp "
                "filter that would outlive the exec; the call fails with ENOSYS (run with trap_syscalls=0 to exec, or "
                "without trap_syscalls=seccomp on a kernel with system call user dispatch)",
                call, path ? path : "(null)");
    errno = ENOSYS;
    return true;
  }
  if (tsc_on) detsim__trap_tsc_release();
  return false;
}
