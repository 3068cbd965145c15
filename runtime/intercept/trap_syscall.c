/* System call instructions outside libc and the runtime, caught at run
 * time (intercept/intercept.h).
 *
 * Two kernel mechanisms, the same answers:
 *  - Syscall User Dispatch (prctl PR_SET_SYSCALL_USER_DISPATCH, Linux 5.11;
 *    the default): every system call whose instruction lies outside libc's
 *    text raises SIGSYS on the calling thread (si_code SYS_USER_DISPATCH)
 *    instead of running.  It is per thread and neither inherited by a new
 *    thread or a fork's child (kernel/fork.c dup_task_struct clears it) nor
 *    kept across execve (fs/exec.c begin_new_exec clears it), so each
 *    thread of the simulation turns it on at its start
 *    (detsim__trap_thread_start: the main thread here, a simulated thread
 *    in its trampoline, a fork's child in its child handler), and an exec
 *    of a simulation build goes on as the process of the world it was, its
 *    new image setting the net up again.  The kernel lets only one region
 *    through, so the other objects that may make real calls (the loader,
 *    the vDSO, the runtime and its libraries: trap_ranges.c) trap too, and
 *    the handler makes their call for them through libc's syscall().
 *  - A seccomp filter (trap_syscalls=seccomp, or a kernel without user
 *    dispatch), installed with PR_SET_NO_NEW_PRIVS on every thread at once
 *    and inherited by every thread made later: it allows each call from
 *    the allowed text and answers every other with SECCOMP_RET_TRAP.  A
 *    filter cannot be removed and would outlive an exec (the new image's
 *    calls would come from unknown text and SIGSYS would kill it), so it
 *    traps execve and execveat wherever they come from, and an exec is
 *    refused with ENOSYS and an error saying so.
 *
 * The handler runs a trapped call of the program through the runtime's
 * syscall-by-number dispatch (syscall.c), the same answer syscall(SYS_x,
 * ...) gets, and puts the result in RAX as the kernel would (-errno on
 * failure).  Inline-asm system calls, static helper code and other language
 * runtimes' raw calls are thus simulated, not escapes.  32-bit system calls
 * (int 0x80) have no simulation: reported, ENOSYS.
 *
 * What user dispatch does not see: a thread libc makes by itself (not
 * through pthread_create, which the runtime's is) has no dispatch on, and
 * libc's own calls are libc's (an exec inside libc, as wordexp's command
 * substitution makes, runs natively); the filter sees every thread.
 *
 * The program's own filters stack above ours; a SIGSYS they raise carries
 * their own SECCOMP_RET_DATA, not ours, and goes to the program's SIGSYS
 * handler (trap_chain.c).
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "limits.h"
#include "core/core.h"
#include "intercept/intercept.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#endif
#ifndef PR_SYS_DISPATCH_ON
#define PR_SYS_DISPATCH_ON 1
#endif
#ifndef SYSCALL_DISPATCH_FILTER_BLOCK
#define SYSCALL_DISPATCH_FILTER_BLOCK 1
#endif

/* SECCOMP_RET_DATA of our traps (si_errno), to tell them from the
 * program's own filters'. */
#define TRAP_TAG 0xd5e7u
/* si_code of a SIGSYS from a filter (the kernel's SYS_SECCOMP), and from
 * user dispatch (SYS_USER_DISPATCH). */
#define SI_CODE_SECCOMP 1
#define SI_CODE_USER_DISPATCH 2

static struct sigaction previous_sigsys;
static enum { TRAP_OFF, TRAP_FILTER, TRAP_DISPATCH } mode;

/* User dispatch: libc's text goes through; the other allowed objects'
 * calls are made for them (their ranges, kept for the handler).  The
 * selector byte says "block" for good: the kernel reads it at each call
 * from outside the region. */
static uintptr_t libc_lo, libc_hi;
static struct detsim_trap_range allowed[DETSIM_TRAP_TEXT_RANGES_MAX];
static int n_allowed;
static volatile char selector = SYSCALL_DISPATCH_FILTER_BLOCK;
__thread bool detsim__trap_dispatch_thread;
/* libc's syscall(), found once at install: the handler may not look it up
 * (dlsym in a signal handler could meet the lock the interrupted code holds). */
static long (*libc_syscall)(long, ...);

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

/* Whether the call at pc (the address after its instruction) comes from
 * an object allowed real calls. */
static bool allowed_site(uintptr_t pc) {
  for (int i = 0; i < n_allowed; i++)
    if (pc - 2 >= allowed[i].lo && pc - 2 < allowed[i].hi) return true;
  return false;
}

/* A call of the loader, the vDSO or the runtime's own text, which user
 * dispatch trapped only because one region passes: made through libc, as
 * the kernel would have.  A signal mask changed here would be undone by
 * the handler's return, so rt_sigprocmask changes the one it restores. */
static long call_for(long nr, const long a[6], ucontext_t *uc) {
  if (nr == SYS_rt_sigprocmask) {
    if (a[3] != 8) return -EINVAL;
    uint64_t *mask = (uint64_t *)(void *)&uc->uc_sigmask, old = *mask;
    if (a[1]) {
      uint64_t set = *(const uint64_t *)a[1];
      if (a[0] == SIG_BLOCK) *mask |= set;
      else if (a[0] == SIG_UNBLOCK) *mask &= ~set;
      else if (a[0] == SIG_SETMASK) *mask = set;
      else return -EINVAL;
      *mask &= ~(1ull << (SIGKILL - 1) | 1ull << (SIGSTOP - 1));
    }
    if (a[2]) *(uint64_t *)a[2] = old;
    return 0;
  }
  long r = libc_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
  return r == -1 ? -errno : r;
}

long detsim__trap_libc_raw(long nr, long a0, long a1, long a2, long a3) {
  int saved = errno;
  long r = libc_syscall(nr, a0, a1, a2, a3, 0L, 0L);
  if (r == -1) r = -errno;
  errno = saved;
  return r;
}

static void on_sigsys(int sig, siginfo_t *si, void *uctx) {
  ucontext_t *uc = uctx;
  greg_t *g = uc->uc_mcontext.gregs;
  bool ours = mode == TRAP_DISPATCH ? si->si_code == SI_CODE_USER_DISPATCH
                                    : si->si_code == SI_CODE_SECCOMP && (unsigned)si->si_errno == TRAP_TAG;
  if (!ours) {
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
  } else if (mode == TRAP_FILTER && (nr == SYS_execve || nr == SYS_execveat)) {
    refuse_exec(g);
  } else if (mode == TRAP_DISPATCH && allowed_site((uintptr_t)si->si_call_addr)) {
    const long a[6] = { g[REG_RDI], g[REG_RSI], g[REG_RDX], g[REG_R10], g[REG_R8], g[REG_R9] };
    g[REG_RAX] = call_for(nr, a, uc);
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
extern void __lsan_do_leak_check(void) __attribute__((weak));
static bool sanitized(void) {
  return __tsan_init || __asan_init || __msan_init || __lsan_do_leak_check || __ubsan_handle_builtin_unreachable;
}

static _Noreturn void usage(const char *msg) {
  detsim__msg("error: DETSIM_OPTIONS=trap_syscalls: %s", msg);
  REAL(syscall)(SYS_exit_group, DETSIM_EXIT_USAGE);
  __builtin_unreachable();
}

/* trap_syscalls=auto|1|seccomp|0: is the net wanted in this run? */
bool detsim__trap_syscalls_wanted(bool in_world) {
  const char *v = detsim__opt.trap_syscalls;
  if (strcmp(v, "0") == 0) return false;
  if (strcmp(v, "1") == 0 || strcmp(v, "seccomp") == 0) {
    if (sanitized())
      usage("a sanitizer's runtime is linked into the executable and makes its own raw system calls from its text: "
            "not with a sanitizer");
    return true;
  }
  return in_world && !sanitized(); /* auto (options.c took nothing else) */
}

static void install_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigsys;
  /* No SA_ONSTACK: the simulated call may block and hand the baton on, on
   * this thread's own stack.  SA_NODEFER: a handler of the program that the
   * simulated call delivers may trap again. */
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  REAL(sigaction)(SIGSYS, &sa, &previous_sigsys);
}

static bool dispatch_on_this_thread(void) {
  long r = libc_syscall(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, libc_lo, libc_hi - libc_lo,
                         &selector);
  if (r != 0) return false;
  detsim__trap_dispatch_thread = true;
  return true;
}

void detsim__trap_thread_start(void) {
  if (mode != TRAP_DISPATCH || detsim__trap_dispatch_thread) return;
  if (!dispatch_on_this_thread()) {
    /* The kernel took it for the first thread: only a resource limit
     * could refuse it now, and a thread without it would leave the net. */
    detsim__msg("error: trap_syscalls: the kernel refused system call user dispatch for a new thread (%s)",
                strerror(errno));
    REAL(syscall)(SYS_exit_group, DETSIM_EXIT_USAGE);
  }
}

static bool install_dispatch(const struct detsim_trap_range *ranges, int n) {
  if (!detsim__trap_libc_text(&libc_lo, &libc_hi)) return false;
  libc_syscall = REAL(syscall);
  /* It must be libc's own: its text is the one that passes. */
  if ((uintptr_t)libc_syscall < libc_lo || (uintptr_t)libc_syscall >= libc_hi) return false;
  n_allowed = n < DETSIM_TRAP_TEXT_RANGES_MAX ? n : DETSIM_TRAP_TEXT_RANGES_MAX;
  memcpy(allowed, ranges, (size_t)n_allowed * sizeof *allowed);
  install_handler();
  mode = TRAP_DISPATCH;
  if (dispatch_on_this_thread()) return true;
  mode = TRAP_OFF;
  REAL(sigaction)(SIGSYS, &previous_sigsys, NULL);
  return false;
}

static void install_filter(const struct detsim_trap_range *ranges, int n) {
  static struct sock_filter f[FILTER_MAX];
  unsigned len = build_filter(f, ranges, n);
  install_handler();
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
  mode = TRAP_FILTER;
}

void detsim__trap_syscalls_install(const struct detsim_trap_range *ranges, int n) {
  /* User dispatch where the kernel has it (an exec stays possible), the
   * filter where it has not, or where asked for. */
  if (strcmp(detsim__opt.trap_syscalls, "seccomp") != 0 && install_dispatch(ranges, n)) return;
  install_filter(ranges, n);
}

bool detsim__trap_syscalls_on(void) { return mode != TRAP_OFF; }

bool detsim__trap_filter_on(void) { return mode == TRAP_FILTER; }
