/* intercept/: the one header of the runtime's intercept part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_INTERCEPT_PART_H
#define DETSIM_INTERCEPT_PART_H

/* REAL(name): the libc function the runtime intercepts.
 *
 * The runtime exports interceptors under libc's own names, so inside the
 * runtime a plain call to e.g. pthread_mutex_lock would call the interceptor
 * again.  Every call to a function the runtime intercepts goes through
 * REAL(name) instead, which is the next definition in the lookup order
 * (libc's), found once with dlsym(RTLD_NEXT).  For pthread_cond_* the 2.3.2
 * symbol version is the current one and must be asked for by version.
 */

#include <stddef.h>

void *detsim__real_lookup(const char *name, const char *version);
/* libc's definition itself, even where REAL(name) is MSan's interceptor. */
void *detsim__real_lookup_libc(const char *name, const char *version);

/* The first definition of `name` in the global lookup order (a sanitizer's
 * interceptor comes before ours), or NULL. */
void *detsim__first_definition(const char *name);
/* The definition of `name` after the runtime's (libc's), or NULL.  Both
 * look up as REAL does: a failed lookup allocates its error message, and a
 * sanitizer's allocator may call back into the runtime meanwhile. */
void *detsim__next_definition(const char *name);

/* Declares `static typeof(&name) detsim__real_<name>` resolved on first use. */
#define REAL(name) \
  (__extension__({ \
    static __typeof__(&name) detsim__real_##name##_p; \
    if (__builtin_expect(detsim__real_##name##_p == NULL, 0)) \
      detsim__real_##name##_p = (__typeof__(&name))detsim__real_lookup(#name, NULL); \
    detsim__real_##name##_p; \
  }))

/* libc's `name` past a sanitizer's interceptor: for a call the sanitizer's
 * interceptor has made already (it wrapped a thread being created), where
 * passing it again would do its work twice.  REAL(name) but under
 * MemorySanitizer, whose interceptors REAL goes through (sanitize/msan.c). */
#define REAL_PAST_SANITIZER(name) \
  (__extension__({ \
    static __typeof__(&name) detsim__libc_##name##_p; \
    if (__builtin_expect(detsim__libc_##name##_p == NULL, 0)) \
      detsim__libc_##name##_p = (__typeof__(&name))detsim__real_lookup_libc(#name, NULL); \
    detsim__libc_##name##_p; \
  }))

#define REAL_VERSIONED(name, version) \
  (__extension__({ \
    static __typeof__(&name) detsim__real_##name##_p; \
    if (__builtin_expect(detsim__real_##name##_p == NULL, 0)) \
      detsim__real_##name##_p = (__typeof__(&name))detsim__real_lookup(#name, version); \
    detsim__real_##name##_p; \
  }))

/* Interceptor definition helpers: the pass calls __detsim_<name>, uninstrumented
 * libraries call <name>; both reach the same code. */
#define DETSIM_EXPORT __attribute__((visibility("default")))
#define DETSIM_INTERCEPT_ALIAS(name) \
  DETSIM_EXPORT __typeof__(name) name __attribute__((alias("__detsim_" #name)));

/* System calls by number inside the simulation (syscall_table.def).
 *
 * __detsim_syscall (syscall.c) dispatches on the table; each ROUTE and
 * SIMULATED line has a detsim__sys_<name> here, which takes the six raw
 * arguments and returns as syscall(2) does: the result, or -1 with errno.
 * They run on a simulated thread holding the baton (the dispatcher sends
 * every other caller to the kernel).
 */

#include <stdint.h>
#include <sys/types.h>

#include "sched/sched.h"

#define DETSIM_SYSCALL_ROUTE(name) long detsim__sys_##name(const long a[6]);
#define DETSIM_SYSCALL_SIMULATED(name) long detsim__sys_##name(const long a[6]);
#define DETSIM_SYSCALL_NOSYS(name)
#define DETSIM_SYSCALL_PASSTHROUGH(name)
#define DETSIM_SYSCALL_UNSUPPORTED(name)
#define DETSIM_SYSCALL(number, name, cls, fds, note) DETSIM_SYSCALL_##cls(name)
#include "syscall_table.def"
#undef DETSIM_SYSCALL
#undef DETSIM_SYSCALL_ROUTE
#undef DETSIM_SYSCALL_SIMULATED
#undef DETSIM_SYSCALL_NOSYS
#undef DETSIM_SYSCALL_PASSTHROUGH
#undef DETSIM_SYSCALL_UNSUPPORTED

/* The calling thread's id as gettid() shows it to the program (the owner
 * word of a PI futex, tgkill's target). */
pid_t detsim__sys_self_tid(void);

/* The live simulated thread with that id (as gettid shows ids), NULL if none. */
detsim_thread *detsim__sys_thread_of_tid(pid_t tid);

/* The program's call site of the raw call being simulated (for events). */
extern uintptr_t detsim__sys_caller;

/* A raw call the simulation does not carry out: reported once per `name`
 * (then quietly), with `why`; the caller fails with an errno. */
void detsim__sys_report(const char *name, const char *why);

/* syscall(number, a...) called from `caller`: the dispatch above for a
 * simulated thread, the kernel for every other caller (a raw system call
 * instruction caught at run time comes in here, trap_syscall.c). */
long detsim__syscall_from(uintptr_t caller, long number, const long a[6]);

/* Sets errno and returns -1: the raw ABI's failure. */
long detsim__sys_fail(int err);

/* The run-time net under the program: instructions that leave the
 * simulation without calling anything the pass or the interposition sees.
 *
 *   trap_syscall.c  system call user dispatch (or a seccomp filter) on the
 *                   instruction pointer: a `syscall` instruction outside the
 *                   text of libc, the dynamic loader, the vDSO and the
 *                   runtime (and the libraries the runtime itself needs)
 *                   raises SIGSYS, and the handler answers it through the
 *                   runtime's syscall-by-number dispatch (syscall.c), as
 *                   syscall(SYS_x, ...) would be.
 *   trap_tsc.c      PR_SET_TSC: rdtsc and rdtscp fault, and the SIGSEGV
 *                   handler answers them from the virtual clock.
 *   trap_ranges.c   the allowed text, read once at install time.
 *   trap_chain.c    what a fault that is not ours becomes: the program's
 *                   own handler (its simulated disposition), else the
 *                   handler that was there before (the crash report).
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "time/time.h"

/* The simulated time-stamp counter's frequency: cycles per virtual second. */
#define DETSIM_TSC_HZ 3000000000ull

/* Installs what the options ask for (trap_syscalls, trap_tsc); at the end
 * of the runtime's set-up, before the program's constructors. */
void detsim__trap_install(void);

/* An exec is about to replace the process image (a seccomp filter and the
 * TSC mode outlive it; user dispatch does not).  With the filter installed
 * the exec is refused (a message naming `call` and `path`, errno ENOSYS,
 * true); otherwise the real counter is given back to the thread and false
 * is returned. */
bool detsim__trap_exec_refused(const char *call, const char *path);
/* A thread of the simulation starts (a simulated thread's trampoline, a
 * fork's child): it turns system call user dispatch on for itself, which
 * no thread inherits. */
void detsim__trap_thread_start(void);

/* ---- shared by the trap_*.c files ---- */

/* The work counter around a trap handler that may run instrumented code
 * (the program's handlers): the interrupted code may hold the counter in a
 * register across the faulting instruction and store it back afterwards,
 * so the counter is put back as it was and the runtime's mark of what it
 * has charged is kept at or below it (no charge goes negative). */
static inline uint64_t detsim__trap_work_save(void) { return __detsim_work; }
static inline void detsim__trap_work_restore(uint64_t saved) {
  __detsim_work = saved;
  if (detsim__work_seen > saved) detsim__work_seen = saved;
}

/* Text ranges [lo, hi) whose system calls the filter allows. */
struct detsim_trap_range {
  uintptr_t lo, hi;
};

/* trap_syscalls=auto|1|seccomp|0 (auto: in a world, without a sanitizer):
 * is the net wanted?  1 or seccomp under a sanitizer is a usage error. */
bool detsim__trap_syscalls_wanted(bool in_world);
/* Installs the SIGSYS handler and user dispatch letting libc's text through
 * (the rest of `ranges` made through libc), or the filter allowing `ranges`
 * (trap_syscalls=seccomp, or no user dispatch in the kernel). */
void detsim__trap_syscalls_install(const struct detsim_trap_range *ranges, int n);
/* The net is installed; it is the seccomp filter. */
bool detsim__trap_syscalls_on(void);
bool detsim__trap_filter_on(void);
/* This thread has user dispatch on: its system calls outside libc trap. */
extern __thread bool detsim__trap_dispatch_thread;
/* A system call through libc's syscall() (its text passes user dispatch);
 * the kernel's -errno result, errno kept. */
long detsim__trap_libc_raw(long nr, long a0, long a1, long a2, long a3);
/* PR_SET_TSC and the SIGSEGV handler; true when the kernel took it. */
bool detsim__trap_tsc_install(void);
/* Gives the calling thread the real counter back (before an exec). */
void detsim__trap_tsc_release(void);

/* A raw system call from the runtime's own text (always allowed by the
 * filter; no errno: the kernel's -errno result).  On a thread with user
 * dispatch on, through libc, whose text alone passes. */
static inline long detsim__trap_raw(long nr, long a0, long a1, long a2, long a3) {
  if (detsim__trap_dispatch_thread) return detsim__trap_libc_raw(nr, a0, a1, a2, a3);
  long ret;
  register long r10 __asm__("r10") = a3;
  register long r8 __asm__("r8") = 0; /* prctl insists its unused arguments be 0 */
  register long r9 __asm__("r9") = 0;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

/* Fills `out` (at most `max`) with the executable segments of the objects
 * loaded now that belong to libc, the loader, the vDSO, the runtime and the
 * runtime's own dependencies; returns how many, or -1 when there are more
 * than `max` (the caller reports the limit). */
int detsim__trap_ranges(struct detsim_trap_range *out, int max);
/* The vDSO's text (its rdtsc reads the real counter: it is the kernel's
 * clock code, reached by libc-internal clock reads). */
bool detsim__trap_in_vdso(uintptr_t pc);
/* libc's executable text, [lo, hi): the one region user dispatch lets
 * through; false when libc is not found. */
bool detsim__trap_libc_text(uintptr_t *lo, uintptr_t *hi);

/* A synchronous fault (SIGSEGV, SIGSYS) that the trap handlers do not
 * answer: runs the program's handler if its simulated disposition has one,
 * else `previous` (the real action before ours), else the default. */
void detsim__trap_chain(int sig, siginfo_t *si, void *uctx, const struct sigaction *previous);

/* A line of /etc/services (services_file.c), what getaddrinfo and
 * getservbyname/getservbyport answer from. */
struct detsim_service {
  char name[DETSIM_SERVICE_NAME_MAX];
  char proto[DETSIM_SERVICE_NAME_MAX];
  char aliases[DETSIM_SERVICE_ALIASES_MAX][DETSIM_SERVICE_NAME_MAX];
  unsigned naliases;
  int port; /* host order */
};
/* The first line naming `name` (or, name NULL, of `port`, host order) for
 * `proto` (NULL: any): false when there is none or the file is unreadable. */
bool detsim__service_find(const char *name, int port, const char *proto, struct detsim_service *out);

#endif /* DETSIM_INTERCEPT_PART_H */
