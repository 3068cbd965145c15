/* CPU time: what each thread (and the process) ran, in virtual time.
 *
 * A thread's CPU time is the virtual time that passed while it ran: every
 * yield point's step and every clock read's step it took (sched.c and
 * intercept_time.c charge them through detsim__cpu_charge).  Time that
 * jumps while every thread waits (a sleep, a timeout, the network) is
 * nobody's CPU time, so a sleeping thread's CPU clock stands still while a
 * busy one's advances, and the process's is the sum over its threads, the
 * finished ones included, as Linux counts them.  All of it is user time:
 * the simulated kernel costs nothing.  There are no child processes, so
 * children's times are zero.
 *
 * The clock ids are glibc's: CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
 * and the dynamic ones, ((~pid) << 3) | type for a process and
 * ((~tid) << 3) | 4 | type for a thread (clock_getcpuclockid makes them
 * from the pid the program passes, pthread_getcpuclockid from the kernel's
 * tid; a program may build them from gettid()'s virtual one).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include "time/time.h"
#include "machine/machine.h"
#include "core/core.h"
#include "intercept/intercept.h"

uint64_t detsim__process_cpu_ns;

#define CPUCLOCK_PERTHREAD 4
#define CPUCLOCK_TYPE_MASK 3
#define CPUCLOCK_TYPES 3 /* PROF, VIRT, SCHED: all read the same here */

bool detsim__cpu_clock(clockid_t id) {
  return id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID || id < 0;
}

static struct timespec ts_of(uint64_t ns) {
  struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
  return ts;
}

/* The kernel tid glibc put in t's clock id (pthread_getcpuclockid reads it
 * from the thread's descriptor, set at clone; 0 once the thread exited). */
static pid_t kernel_tid_of(const detsim_thread *t) {
  clockid_t id;
  if (pthread_getcpuclockid(t->pthread, &id) != 0) return 0;
  return (pid_t) ~(id >> 3);
}

/* A simulated thread by the tid a clock id names: the virtual one (gettid)
 * or the kernel's (pthread_getcpuclockid); finished ones too, until joined. */
static const detsim_thread *thread_of_tid(pid_t tid) {
  if (tid == 0) return detsim__self();
  for (unsigned i = 0; i < W.slots_used; i++) {
    const detsim_thread *t = &W.threads[i];
    if (t->state != DETSIM_T_FREE && t->tid == tid) return t;
  }
  for (unsigned i = 0; i < W.slots_used; i++) {
    const detsim_thread *t = &W.threads[i];
    if (t->state != DETSIM_T_FREE && kernel_tid_of(t) == tid) return t;
  }
  return NULL;
}

/* The CPU time a dynamic clock id names, or EINVAL when it names none (as
 * Linux: a bad clock type, a thread or process that is not there). */
static int dynamic_clock_ns(clockid_t id, uint64_t *ns) {
  if ((id & CPUCLOCK_TYPE_MASK) >= CPUCLOCK_TYPES) return EINVAL;
  pid_t who = (pid_t) ~(id >> 3);
  if (id & CPUCLOCK_PERTHREAD) {
    const detsim_thread *t = thread_of_tid(who);
    if (t == NULL) return EINVAL;
    *ns = t->cpu_ns;
    return 0;
  }
  /* Its own pid as the program sees it, or the kernel's; another
   * process's clock is not ours to see. */
  if (who != 0 && who != detsim__machine_pid() && who != REAL(getpid)()) return EINVAL;
  *ns = detsim__process_cpu_ns;
  return 0;
}

int detsim__cpu_clock_valid(clockid_t id) {
  if (id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID) return 0;
  struct timespec ts;
  if (detsim__self() == NULL) return REAL(clock_getres)(id, &ts) == 0 ? 0 : EINVAL;
  uint64_t ns;
  return dynamic_clock_ns(id, &ns);
}

int detsim__cpu_clock_read(clockid_t id, struct timespec *ts) {
  detsim_thread *self = detsim__self();
  if (id == CLOCK_PROCESS_CPUTIME_ID) {
    *ts = ts_of(detsim__process_cpu_ns);
    return 0;
  }
  if (self == NULL) return REAL(clock_gettime)(id, ts) == 0 ? 0 : errno; /* not a simulated thread */
  if (id == CLOCK_THREAD_CPUTIME_ID) {
    *ts = ts_of(self->cpu_ns);
    return 0;
  }
  uint64_t ns;
  int r = dynamic_clock_ns(id, &ns);
  if (r == 0) *ts = ts_of(ns);
  return r;
}

/* The process's clock for pid 0 and for its own pid (the one the program
 * sees, or the real one); other processes' are not simulated (ESRCH). */
DETSIM_EXPORT int __detsim_clock_getcpuclockid(pid_t pid, clockid_t *id) {
  if (!detsim__running()) return REAL(clock_getcpuclockid)(pid, id);
  if (pid != 0 && pid != detsim__machine_pid() && pid != REAL(getpid)()) return ESRCH;
  /* The id encodes the pid the program passed, as glibc's does. */
  *id = (clockid_t)(~(unsigned)pid << 3) | 2;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(clock_getcpuclockid)

/* A CPU-time read is a clock read: a yield point that costs clock_step_ns. */
static void clock_event(uintptr_t pc) {
  detsim_thread *self = detsim__self();
  if (self == NULL) return;
  detsim__yield_aux(DETSIM_EV_clock_read, NULL, pc, 0);
  detsim__clock_advance_by(detsim__opt.clock_step_ns);
  detsim__cpu_charge(self, detsim__opt.clock_step_ns);
}

static long clock_ticks_per_s(void) {
  long hz = REAL(sysconf)(_SC_CLK_TCK);
  return hz > 0 ? hz : 100;
}

DETSIM_EXPORT clock_t __detsim_times(struct tms *out) {
  if (!detsim__running()) return REAL(times)(out);
  clock_event((uintptr_t)__builtin_return_address(0));
  uint64_t ns_per_tick = 1000000000ull / (uint64_t)clock_ticks_per_s();
  if (out != NULL) {
    memset(out, 0, sizeof *out);
    out->tms_utime = (clock_t)(detsim__process_cpu_ns / ns_per_tick);
  }
  /* Elapsed ticks since boot, as Linux's times() returns them. */
  struct timespec now;
  detsim__clock_read(CLOCK_MONOTONIC, &now);
  return (clock_t)(((uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec) / ns_per_tick);
}
DETSIM_INTERCEPT_ALIAS(times)

static struct timeval tv_of(uint64_t ns) {
  struct timeval tv = { (time_t)(ns / 1000000000ull), (suseconds_t)(ns % 1000000000ull / 1000) };
  return tv;
}

/* Only the CPU times are simulated; every other field is zero (a real
 * maxrss or fault count would differ run to run). */
DETSIM_EXPORT int __detsim_getrusage(int who, struct rusage *ru) {
  if (!detsim__running() || (who == RUSAGE_THREAD && detsim__self() == NULL)) return REAL(getrusage)(who, ru);
  if (who != RUSAGE_SELF && who != RUSAGE_THREAD && who != RUSAGE_CHILDREN) {
    errno = EINVAL;
    return -1;
  }
  clock_event((uintptr_t)__builtin_return_address(0));
  memset(ru, 0, sizeof *ru);
  if (who == RUSAGE_SELF) ru->ru_utime = tv_of(detsim__process_cpu_ns);
  if (who == RUSAGE_THREAD) ru->ru_utime = tv_of(detsim__self()->cpu_ns);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(getrusage)
