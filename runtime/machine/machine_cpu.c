/* Interceptors: the CPUs and scheduling a program sees.
 *
 * The run is pinned to one real CPU with SCHED_BATCH (init.c); the program
 * sees the simulated machine instead: `cpus` CPUs (an option, or drawn per
 * seed), all online, every thread allowed on all of them until it says
 * otherwise, and the scheduling policy and priority it set (SCHED_OTHER, 0
 * by default).  Affinity masks and policies are recorded per simulated
 * thread and inherited by the threads it creates, as on Linux; the
 * scheduler runs one thread at a time, the highest real-time priority
 * first (machine_prio.c), in seed order among equals.
 *
 * Before the simulation runs, and on threads outside it, the calls are the
 * real ones: those are the runtime's and libc's own plumbing.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/core.h"
#include "sanitize/sanitize.h"
#include "time/time.h"
#include "limits.h"
#include "machine/machine.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "world/world.h"

/* ---- the CPU set ---- */

int detsim__machine_cpus_parse(const char *text, unsigned *n, bool *draw) {
  *draw = strcmp(text, "draw") == 0;
  *n = 0;
  if (*draw) return 0;
  char *end;
  errno = 0;
  unsigned long v = strtoul(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || v < 1 || v > DETSIM_CPUS_MAX) return -1;
  *n = (unsigned)v;
  return 0;
}

static unsigned cpus_n;

unsigned detsim__machine_cpus(void) {
  if (cpus_n != 0) return cpus_n;
  unsigned n;
  bool draw;
  CHECK_EQ(detsim__machine_cpus_parse(detsim__opt.cpus, &n, &draw), 0); /* validated with the options */
  if (draw) {
    /* A stream of its own: the machine's size never moves another draw.
     * Each node of a world is its own machine, its processes' too. */
    char label[64];
    detsim__world_host_label(label, sizeof label, "machine/cpus");
    struct detsim_rng r;
    detsim__rng_init(&r, detsim__seed_child(detsim__seed(), label));
    n = 1 + (unsigned)detsim__rng_below(&r, DETSIM_CPUS_MAX);
  }
  CHECK_GE(n, 1);
  CHECK_LE(n, DETSIM_CPUS_MAX);
  cpus_n = n;
  return n;
}

static uint64_t all_cpus(void) {
  unsigned n = detsim__machine_cpus();
  return n == 64 ? ~0ull : (1ull << n) - 1;
}

static uint64_t mask_of(const detsim_thread *t) { return t->affinity != 0 ? t->affinity : all_cpus(); }

/* Simulated values apply once the simulation runs; before, libc's. */
static bool simulated(void) { return detsim__running() && !detsim__internal(); }

pid_t detsim__machine_pid(void) { return detsim__proc_ids_ready() ? detsim__proc_pid() : REAL(getpid)(); }

unsigned detsim__machine_threads(void) { return W.live; }

/* ---- sysconf and friends ---- */

static long pages(uint64_t bytes) {
  long page = REAL(sysconf)(_SC_PAGESIZE);
  return (long)(bytes / (uint64_t)(page > 0 ? page : 4096));
}

DETSIM_EXPORT long __detsim_sysconf(int name) {
  if (!simulated()) return REAL(sysconf)(name);
  switch (name) {
  case _SC_NPROCESSORS_CONF:
  case _SC_NPROCESSORS_ONLN: return (long)detsim__machine_cpus();
  case _SC_PHYS_PAGES: return pages(DETSIM_MACHINE_MEMORY_BYTES);
  case _SC_AVPHYS_PAGES: return pages(DETSIM_MACHINE_MEMORY_BYTES / 4 * 3);
  default: return REAL(sysconf)(name);
  }
}
/* MSan's start-up asks it for the signal stack's size. */
DETSIM_MSAN_EARLY(long, sysconf, (int name), (name))

DETSIM_EXPORT int __detsim_get_nprocs(void) {
  if (!simulated()) return REAL(get_nprocs)();
  return (int)detsim__machine_cpus();
}
DETSIM_INTERCEPT_ALIAS(get_nprocs)

DETSIM_EXPORT int __detsim_get_nprocs_conf(void) {
  if (!simulated()) return REAL(get_nprocs_conf)();
  return (int)detsim__machine_cpus();
}
DETSIM_INTERCEPT_ALIAS(get_nprocs_conf)

DETSIM_EXPORT long __detsim_get_phys_pages(void) {
  if (!simulated()) return REAL(get_phys_pages)();
  return pages(DETSIM_MACHINE_MEMORY_BYTES);
}
DETSIM_INTERCEPT_ALIAS(get_phys_pages)

DETSIM_EXPORT long __detsim_get_avphys_pages(void) {
  if (!simulated()) return REAL(get_avphys_pages)();
  return pages(DETSIM_MACHINE_MEMORY_BYTES / 4 * 3);
}
DETSIM_INTERCEPT_ALIAS(get_avphys_pages)

/* The simulated machine's totals: its memory, no swap, uptime on the
 * virtual monotonic clock, an idle machine's loads, one process. */
DETSIM_EXPORT int __detsim_sysinfo(struct sysinfo *info) {
  if (!simulated()) return REAL(sysinfo)(info);
  if (info == NULL) {
    errno = EFAULT;
    return -1;
  }
  memset(info, 0, sizeof *info);
  struct timespec up;
  detsim__clock_read(CLOCK_BOOTTIME, &up);
  info->uptime = up.tv_sec;
  info->totalram = DETSIM_MACHINE_MEMORY_BYTES;
  info->freeram = DETSIM_MACHINE_MEMORY_BYTES / 4 * 3;
  info->procs = 1;
  info->mem_unit = 1;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sysinfo)

DETSIM_EXPORT int __detsim_getloadavg(double loads[], int n) {
  if (!simulated()) return REAL(getloadavg)(loads, n);
  if (n < 0) return -1;
  if (n > 3) n = 3;
  for (int i = 0; i < n; i++) loads[i] = 0.0;
  return n;
}
DETSIM_INTERCEPT_ALIAS(getloadavg)

/* The nodename is the node's name (gethostname's); the kernel's release
 * and version stay the real ones (docs/functions.md: a blind spot). */
DETSIM_EXPORT int __detsim_uname(struct utsname *u) {
  int r = REAL(uname)(u);
  if (r != 0 || !simulated()) return r;
  char name[sizeof u->nodename];
  if (gethostname(name, sizeof name) == 0) memcpy(u->nodename, name, sizeof name);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(uname)

/* ---- which thread a pid or pthread_t names ---- */

/* sched_*(pid): 0 is the caller, the process's pid its main thread, a
 * thread id that thread; anything else is no thread of ours (ESRCH). */
static detsim_thread *thread_of_pid(pid_t pid) {
  detsim_thread *self = detsim__self();
  if (pid == 0) return self;
  if (pid < 0) return NULL;
  if (pid == detsim__machine_pid() || pid == REAL(getpid)()) pid = REAL(getpid)(); /* the main thread's tid */
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *t = &W.threads[i];
    if ((t->state == DETSIM_T_RUNNABLE || t->state == DETSIM_T_BLOCKED) && t->tid == pid) return t;
  }
  return NULL;
}

/* ---- affinity ---- */

static uint64_t mask_from(size_t size, const cpu_set_t *set) {
  uint64_t m = 0;
  unsigned n = detsim__machine_cpus();
  for (unsigned c = 0; c < n && c < size * 8; c++)
    if (CPU_ISSET_S(c, size, set)) m |= 1ull << c;
  return m;
}

/* 0 or an errno, as the kernel: a mask that names no online CPU is EINVAL. */
static int set_affinity(detsim_thread *t, size_t size, const cpu_set_t *set) {
  if (t == NULL) return ESRCH;
  if (set == NULL) return EFAULT;
  uint64_t m = mask_from(size, set);
  if (m == 0) return EINVAL;
  t->affinity = m == all_cpus() ? 0 : m;
  return 0;
}

/* The kernel wants room for every possible CPU, in whole longs. */
static int get_affinity(const detsim_thread *t, size_t size, cpu_set_t *set) {
  if (t == NULL) return ESRCH;
  size_t need = (detsim__machine_cpus() + 8 * sizeof(long) - 1) / (8 * sizeof(long)) * sizeof(long);
  if (size < need || (size % sizeof(long)) != 0) return EINVAL;
  if (set == NULL) return EFAULT;
  CPU_ZERO_S(size, set);
  uint64_t m = mask_of(t);
  for (unsigned c = 0; c < 64; c++)
    if (m & (1ull << c)) CPU_SET_S(c, size, set);
  return 0;
}

static int as_errno_call(int e) {
  if (e == 0) return 0;
  errno = e;
  return -1;
}

DETSIM_EXPORT int __detsim_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set) {
  if (detsim__self() == NULL) return REAL(sched_setaffinity)(pid, size, set);
  return as_errno_call(set_affinity(thread_of_pid(pid), size, set));
}
DETSIM_INTERCEPT_ALIAS(sched_setaffinity)

DETSIM_EXPORT int __detsim_sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set) {
  if (detsim__self() == NULL) return REAL(sched_getaffinity)(pid, size, set);
  return as_errno_call(get_affinity(thread_of_pid(pid), size, set));
}
DETSIM_INTERCEPT_ALIAS(sched_getaffinity)

DETSIM_EXPORT int __detsim_pthread_setaffinity_np(pthread_t pt, size_t size, const cpu_set_t *set) {
  if (detsim__self() == NULL) return REAL(pthread_setaffinity_np)(pt, size, set);
  return set_affinity(detsim__thread_of(pt), size, set);
}
DETSIM_INTERCEPT_ALIAS(pthread_setaffinity_np)

DETSIM_EXPORT int __detsim_pthread_getaffinity_np(pthread_t pt, size_t size, cpu_set_t *set) {
  if (detsim__self() == NULL) return REAL(pthread_getaffinity_np)(pt, size, set);
  /* glibc's wrapper accepts any size that holds the mask and zeroes the rest. */
  detsim_thread *t = detsim__thread_of(pt);
  if (t == NULL) return ESRCH;
  if (size * 8 < detsim__machine_cpus()) return EINVAL;
  CPU_ZERO_S(size, set);
  uint64_t m = mask_of(t);
  for (unsigned c = 0; c < 64 && c < size * 8; c++)
    if (m & (1ull << c)) CPU_SET_S(c, size, set);
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_getaffinity_np)

/* The CPU a thread is on: threads spread over the CPUs they may use, by
 * creation order (a thread stays on its CPU, as an idle machine keeps it). */
DETSIM_EXPORT int __detsim_sched_getcpu(void) {
  detsim_thread *self = detsim__self();
  if (self == NULL) return REAL(sched_getcpu)();
  uint64_t m = mask_of(self);
  unsigned k = (self->id - 1) % (unsigned)__builtin_popcountll(m);
  for (unsigned c = 0; c < 64; c++)
    if ((m & (1ull << c)) && k-- == 0) return (int)c;
  CHECK(false); /* k < popcount(m): some set bit is the k-th */
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sched_getcpu)

/* ---- policies (machine_prio.c keeps the priorities) ---- */

/* After a change of priorities: a thread now of a higher priority than the
 * caller takes the CPU. */
static int switch_if_raised(int e) {
  if (e == 0 && detsim__rt_ever) detsim__sched_rt_point(detsim__self());
  return e;
}

static int set_policy(detsim_thread *t, int policy, const struct sched_param *p, bool keep_policy) {
  if (p == NULL) return EINVAL;
  if (t == NULL) return ESRCH;
  return switch_if_raised(detsim__machine_kernel_set(t, keep_policy ? t->sched_policy : policy, p->sched_priority));
}

DETSIM_EXPORT int __detsim_sched_setscheduler(pid_t pid, int policy, const struct sched_param *p) {
  if (detsim__self() == NULL) return REAL(sched_setscheduler)(pid, policy, p);
  return as_errno_call(set_policy(thread_of_pid(pid), policy, p, false));
}
DETSIM_INTERCEPT_ALIAS(sched_setscheduler)

DETSIM_EXPORT int __detsim_sched_getscheduler(pid_t pid) {
  if (detsim__self() == NULL) return REAL(sched_getscheduler)(pid);
  detsim_thread *t = thread_of_pid(pid);
  if (t == NULL) return as_errno_call(pid < 0 ? EINVAL : ESRCH);
  return t->sched_policy;
}
DETSIM_INTERCEPT_ALIAS(sched_getscheduler)

DETSIM_EXPORT int __detsim_sched_setparam(pid_t pid, const struct sched_param *p) {
  if (detsim__self() == NULL) return REAL(sched_setparam)(pid, p);
  return as_errno_call(set_policy(thread_of_pid(pid), 0, p, true));
}
DETSIM_INTERCEPT_ALIAS(sched_setparam)

DETSIM_EXPORT int __detsim_sched_getparam(pid_t pid, struct sched_param *p) {
  if (detsim__self() == NULL) return REAL(sched_getparam)(pid, p);
  detsim_thread *t = thread_of_pid(pid);
  if (p == NULL || pid < 0) return as_errno_call(EINVAL);
  if (t == NULL) return as_errno_call(ESRCH);
  memset(p, 0, sizeof *p);
  p->sched_priority = t->sched_priority;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(sched_getparam)

/* The pthread_* calls are glibc's: they keep its copy in the thread
 * descriptor, and PRIO_PROTECT ceilings held stay in force. */
DETSIM_EXPORT int __detsim_pthread_setschedparam(pthread_t pt, int policy, const struct sched_param *p) {
  if (detsim__self() == NULL) return REAL(pthread_setschedparam)(pt, policy, p);
  if (p == NULL) return EINVAL;
  detsim_thread *t = detsim__thread_of(pt);
  if (t == NULL) return ESRCH;
  return switch_if_raised(detsim__machine_glibc_setschedparam(t, policy, p->sched_priority));
}
DETSIM_INTERCEPT_ALIAS(pthread_setschedparam)

DETSIM_EXPORT int __detsim_pthread_getschedparam(pthread_t pt, int *policy, struct sched_param *p) {
  if (detsim__self() == NULL) return REAL(pthread_getschedparam)(pt, policy, p);
  detsim_thread *t = detsim__thread_of(pt);
  if (t == NULL) return ESRCH;
  int prio;
  detsim__machine_glibc_view(t, policy, &prio);
  memset(p, 0, sizeof *p);
  p->sched_priority = prio;
  return 0;
}
DETSIM_INTERCEPT_ALIAS(pthread_getschedparam)

DETSIM_EXPORT int __detsim_pthread_setschedprio(pthread_t pt, int prio) {
  if (detsim__self() == NULL) return REAL(pthread_setschedprio)(pt, prio);
  detsim_thread *t = detsim__thread_of(pt);
  if (t == NULL) return ESRCH;
  return switch_if_raised(detsim__machine_glibc_setschedprio(t, prio));
}
DETSIM_INTERCEPT_ALIAS(pthread_setschedprio)

/* A new thread has its creator's kernel policy (a PRIO_PROTECT raise
 * included, as Linux copies the creator's priority) and a copy of its
 * creator's glibc descriptor values, or both from attr when it asks for
 * explicit scheduling; it holds no PRIO_PROTECT mutex. */
void detsim__machine_thread_init(detsim_thread *t, const detsim_thread *creator, const pthread_attr_t *attr) {
  CHECK(creator != NULL);
  t->affinity = creator->affinity;
  t->sched_policy = creator->sched_policy;
  t->sched_priority = creator->sched_priority;
  t->glibc_policy_known = creator->glibc_policy_known;
  t->glibc_param_known = creator->glibc_param_known;
  t->glibc_policy = creator->glibc_policy;
  t->glibc_priority = creator->glibc_priority;
  t->nice_known = creator->nice_known; /* a new thread starts at its creator's nice value */
  t->nice = creator->nice;
  int inherit = PTHREAD_INHERIT_SCHED;
  if (attr == NULL || pthread_attr_getinheritsched(attr, &inherit) != 0 || inherit != PTHREAD_EXPLICIT_SCHED) return;
  int policy;
  struct sched_param p;
  if (pthread_attr_getschedpolicy(attr, &policy) == 0 && pthread_attr_getschedparam(attr, &p) == 0 &&
      detsim__machine_kernel_set(t, policy, p.sched_priority) == 0) {
    t->glibc_policy = policy;
    t->glibc_priority = p.sched_priority;
    t->glibc_policy_known = t->glibc_param_known = true;
  }
}
