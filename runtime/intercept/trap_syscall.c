/* System call instructions outside libc and the runtime, caught at run
 * time (intercept/intercept.h).
 *
 * A seccomp filter (installed with PR_SET_NO_NEW_PRIVS, on every thread at
 * once) allows each system call whose instruction pointer lies in the text
 * trap_ranges.c collects, and answers every other one with
 * SECCOMP_RET_TRAP: the kernel does not run the call and raises SIGSYS on
 * the calling thread, with the number, the call site and the registers.
 * The handler runs the call through the runtime's syscall-by-number
 * dispatch (syscall.c), the same answer syscall(SYS_x, ...) gets, and puts
 * the result in RAX as the kernel would (-errno on failure).  Inline-asm
 * system calls, static helper code and other language runtimes' raw calls
 * are thus simulated, not escapes.
 *
 * Calls the filter traps whatever their site: execve and execveat, since
 * a filter cannot be removed and would outlive the exec (the new image's
 * calls would come from unknown text and SIGSYS would kill it): an exec
 * is refused with ENOSYS and an error saying so.  32-bit system calls
 * (int 0x80) have no simulation: reported, ENOSYS.
 *
 * The program's own filters stack above this one; a SIGSYS they raise
 * carries their own SECCOMP_RET_DATA, not ours, and goes to the program's
 * SIGSYS handler (trap_chain.c).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "limits.h"
#include "core/core.h"
#include "intercept/intercept.h"

/* SECCOMP_RET_DATA of our traps (si_errno), to tell them from the
 * program's own filters'. */
#define TRAP_TAG 0xd5e7u
/* si_code of a SIGSYS from a filter (the kernel's SYS_SECCOMP). */
#define SI_CODE_SECCOMP 1

static struct sigaction previous_sigsys;
static bool filter_on;

/* Instructions of the filter: 4 for the arch and exec checks, 6 per range
 * piece, 2 at the end.  BPF compares 32-bit words, so a range is cut into
 * pieces that do not cross a 4 GiB boundary. */
#define FILTER_MAX (8 + 6 * 2 * DETSIM_TRAP_TEXT_RANGES_MAX)

#define IP_LO offsetof(struct seccomp_data, instruction_pointer)
#define IP_HI (offsetof(struct seccomp_data, instruction_pointer) + 4)

static unsigned emit_piece(struct sock_filter *f, unsigned n, uint64_t lo, uint64_t last) {
  /* ip in [lo, last] with lo and last in the same 4 GiB: allow; else on
   * to the next piece (6 instructions ahead). */
  f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, IP_HI);
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(lo >> 32), 0, 4);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, IP_LO);
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)lo, 0, 2);
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, (uint32_t)last, 1, 0);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  return n;
}

static unsigned build_filter(struct sock_filter *f, const struct detsim_trap_range *r, int nr) {
  unsigned n = 0;
  const uint32_t trap = SECCOMP_RET_TRAP | TRAP_TAG;
  f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, trap);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 1, 0);
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 0, 1);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, trap);
  for (int i = 0; i < nr; i++) {
    uint64_t lo = r[i].lo, last = r[i].hi - 1;
    while ((lo >> 32) != (last >> 32)) {
      uint64_t piece_last = (lo | 0xffffffffull);
      n = emit_piece(f, n, lo, piece_last);
      lo = piece_last + 1;
    }
    n = emit_piece(f, n, lo, last);
  }
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, trap);
  return n;
}

static void refuse_exec(greg_t *g) {
  const char *path = g[REG_RAX] == SYS_execve ? (const char *)g[REG_RDI] : (const char *)g[REG_RSI];
  detsim__msg("error: exec of \"%s\": the run traps raw system calls (DETSIM_OPTIONS=trap_syscalls) with a seccomp "
              "filter that would outlive the exec; the call fails with ENOSYS (run with trap_syscalls=0 to exec)",
              path ? path : "(null)");
  g[REG_RAX] = -ENOSYS;
}

static void on_sigsys(int sig, siginfo_t *si, void *uctx) {
  ucontext_t *uc = uctx;
  greg_t *g = uc->uc_mcontext.gregs;
  if (si->si_code != SI_CODE_SECCOMP || (unsigned)si->si_errno != TRAP_TAG) {
    detsim__trap_chain(sig, si, uctx, &previous_sigsys);
    return;
  }
  int saved_errno = errno;
  long nr = si->si_syscall;
  if (si->si_arch != AUDIT_ARCH_X86_64) {
    static int told;
    if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
      detsim__msg("warning: a 32-bit system call (int 0x80, number %ld) at %p is not simulated; it fails with ENOSYS "
                  "instead of reaching the real kernel", nr, si->si_call_addr);
    g[REG_RAX] = -ENOSYS;
  } else if (nr == SYS_execve || nr == SYS_execveat) {
    refuse_exec(g);
  } else {
    const long a[6] = { g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8], g[REG_R9] };
    errno = 0;
    uint64_t work = detsim__trap_work_save();
    long r = detsim__syscall_from((uintptr_t)si->si_call_addr, nr, a);
    detsim__trap_work_restore(work);
    if (r == -1 && errno != 0) r = -errno;
    g[REG_RAX] = r;
  }
  errno = saved_errno;
}

/* Are a sanitizer's runtime and its raw system calls (from the
 * executable's own text) in the process? */
extern void __tsan_init(void) __attribute__((weak));
extern void __asan_init(void) __attribute__((weak));
extern void __msan_init(void) __attribute__((weak));
extern void __ubsan_handle_builtin_unreachable(void *) __attribute__((weak));
static bool sanitized(void) { return __tsan_init || __asan_init || __msan_init || __ubsan_handle_builtin_unreachable; }

static _Noreturn void usage(const char *msg) {
  detsim__msg("error: DETSIM_OPTIONS=trap_syscalls: %s", msg);
  REAL(syscall)(SYS_exit_group, DETSIM_EXIT_USAGE);
  __builtin_unreachable();
}

/* trap_syscalls=auto|1|0: is the filter wanted in this run? */
bool detsim__trap_syscalls_wanted(bool in_world) {
  const char *v = detsim__opt.trap_syscalls;
  if (strcmp(v, "0") == 0) return false;
  if (strcmp(v, "1") == 0) {
    if (sanitized())
      usage("a sanitizer's runtime is linked into the executable and makes its own raw system calls from its text: "
            "not with a sanitizer");
    return true;
  }
  return in_world && !sanitized(); /* auto (options.c took nothing else) */
}

void detsim__trap_syscalls_install(const struct detsim_trap_range *ranges, int n) {
  static struct sock_filter f[FILTER_MAX];
  unsigned len = build_filter(f, ranges, n);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigsys;
  /* No SA_ONSTACK: the simulated call may block and hand the baton on, on
   * this thread's own stack.  SA_NODEFER: a handler of the program that the
   * simulated call delivers may trap again. */
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  REAL(sigaction)(SIGSYS, &sa, &previous_sigsys);
  struct sock_fprog prog = { .len = (unsigned short)len, .filter = f };
  long r = detsim__trap_raw(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0);
  if (r == 0) r = detsim__trap_raw(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, (long)&prog, 0);
  if (r != 0) {
    /* A negative errno, or the id of a thread TSYNC could not bring along. */
    detsim__msg("warning: trap_syscalls: the kernel refused the seccomp filter (%s %ld); raw system call "
                "instructions run natively", r < 0 ? "errno" : "thread", r < 0 ? -r : r);
    REAL(sigaction)(SIGSYS, &previous_sigsys, NULL);
    return;
  }
  filter_on = true;
}

bool detsim__trap_syscalls_on(void) { return filter_on; }
