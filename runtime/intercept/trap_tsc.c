/* rdtsc and rdtscp read virtual time (intercept/intercept.h).
 *
 * prctl(PR_SET_TSC, PR_TSC_SIGSEGV) makes both instructions fault on every
 * thread created afterwards (the mode is per thread and inherited), so it
 * is set on the main thread before the program makes any.  The SIGSEGV
 * handler decodes the instruction at RIP (0F 31 rdtsc, 0F 01 F9 rdtscp):
 *  - on a simulated thread, the counter is the virtual CLOCK_MONOTONIC at
 *    DETSIM_TSC_HZ (a clock read of the simulation, like clock_gettime),
 *    and rdtscp's ECX (TSC_AUX) is the simulated CPU sched_getcpu shows;
 *  - in the vDSO's text (libc-internal clock reads, which reach the kernel's
 *    clock code) and on threads outside the simulation (the runtime's own),
 *    the real counter: the thread enables the TSC, reads it, disables it;
 * then RIP moves past the instruction.  Every other fault goes on to the
 * program's SIGSEGV handler or the crash report (trap_chain.c).
 *
 * The mode outlives exec: before an exec the thread gets the real counter
 * back (detsim__trap_exec_refused).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>

#include "intercept/intercept.h"
#include "sched/sched.h"

extern int __detsim_clock_gettime(clockid_t id, struct timespec *ts);
extern int __detsim_sched_getcpu(void);

static struct sigaction previous_sigsegv;

/* Instruction length of rdtsc (2) or rdtscp (3) at pc, 0 for anything else.
 * Bytes are read only as far as the instruction must reach. */
static int tsc_instruction(const unsigned char *pc, bool *with_aux) {
  if (pc[0] != 0x0f) return 0;
  if (pc[1] == 0x31) {
    *with_aux = false;
    return 2;
  }
  if (pc[1] == 0x01 && pc[2] == 0xf9) {
    *with_aux = true;
    return 3;
  }
  return 0;
}

static uint64_t real_counter(bool with_aux, uint32_t *aux) {
  uint32_t lo, hi, c = 0;
  detsim__trap_raw(SYS_prctl, PR_SET_TSC, PR_TSC_ENABLE, 0, 0);
  if (with_aux) __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(c));
  else __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  detsim__trap_raw(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0);
  *aux = c;
  return (uint64_t)hi << 32 | lo;
}

static uint64_t virtual_counter(bool with_aux, uint32_t *aux) {
  struct timespec ts = { 0, 0 };
  __detsim_clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  /* ns * 3 GHz / 1e9 without overflow for any run shorter than ~190 years. */
  uint64_t cycles = ns / 1000000000ull * DETSIM_TSC_HZ + ns % 1000000000ull * (DETSIM_TSC_HZ / 1000000000ull);
  *aux = with_aux ? (uint32_t)__detsim_sched_getcpu() : 0;
  return cycles;
}

static void on_sigsegv(int sig, siginfo_t *si, void *uctx) {
  ucontext_t *uc = uctx;
  greg_t *g = uc->uc_mcontext.gregs;
  bool with_aux = false;
  int len = si->si_code == SI_KERNEL ? tsc_instruction((const unsigned char *)g[REG_RIP], &with_aux) : 0;
  if (len == 0) {
    detsim__trap_chain(sig, si, uctx, &previous_sigsegv);
    return;
  }
  int saved_errno = errno;
  uint32_t aux = 0;
  bool simulated = detsim__running() && !detsim__internal() && detsim__self() != NULL &&
                   !detsim__trap_in_vdso((uintptr_t)g[REG_RIP]);
  uint64_t work = detsim__trap_work_save();
  uint64_t tsc = simulated ? virtual_counter(with_aux, &aux) : real_counter(with_aux, &aux);
  detsim__trap_work_restore(work);
  g[REG_RAX] = (greg_t)(uint32_t)tsc;
  g[REG_RDX] = (greg_t)(uint32_t)(tsc >> 32);
  if (with_aux) g[REG_RCX] = (greg_t)aux;
  g[REG_RIP] += len;
  errno = saved_errno;
}

bool detsim__trap_tsc_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigsegv;
  /* As the crash report it stands in front of: on the alternate stack (a
   * stack overflow is still reported), not deferred (a fault inside the
   * program's handler is its own). */
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  REAL(sigaction)(SIGSEGV, &sa, &previous_sigsegv);
  if (detsim__trap_raw(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0) != 0) {
    REAL(sigaction)(SIGSEGV, &previous_sigsegv, NULL);
    return false;
  }
  return true;
}

void detsim__trap_tsc_release(void) { detsim__trap_raw(SYS_prctl, PR_SET_TSC, PR_TSC_ENABLE, 0, 0); }
