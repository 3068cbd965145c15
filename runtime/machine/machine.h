/* machine/: the one header of the runtime's machine part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_MACHINE_PART_H
#define DETSIM_MACHINE_PART_H

/* The machine a program sees: CPUs, scheduling policies, CPU time, and the
 * files that are sources of randomness or machine identity.
 *
 * A simulation build runs pinned to one real CPU with batch scheduling, on
 * whatever machine the run happens to be on; none of that may show.  The
 * program sees a simulated machine instead, a pure function of the seed and
 * the options:
 *
 *   machine_cpu.c       the CPU set (option cpus), affinity, sched_getcpu,
 *                       scheduling policies as the program set them, uname
 *   machine_prio.c      the priorities behind them: the kernel's, glibc's
 *                       copy, PRIO_PROTECT raises, PRIO_INHERIT boosts, and
 *                       the effective one the scheduler picks by
 *   machine_cputime.c   CPU-time clocks: the virtual time each thread ran
 *   machine_files.c     open/openat/fopen of /dev/urandom, /proc/cpuinfo,
 *                       /etc/machine-id ... (the path table)
 *   machine_devrandom.c the endless random devices: a simulated descriptor
 *                       kind and a stdio cookie stream, drawing from the
 *                       seed's "devrandom" stream
 *
 * Rules of these files: simulated values never depend on the real machine;
 * draws come from streams of their own (a program reading random bytes
 * never reshuffles the scheduler's); before the simulation runs, and for
 * the runtime's own calls, everything is real.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include "sched/sched.h"

/* ---- machine_cpu.c ---- */

/* Parses the cpus option ("4", or "draw"): 0, or -1 for a bad value. */
int detsim__machine_cpus_parse(const char *text, unsigned *n, bool *draw);
/* The simulated CPUs (1..DETSIM_CPUS_MAX), all online. */
unsigned detsim__machine_cpus(void);
/* A new thread's machine state: affinity and policy from its creator, or
 * from attr when it asks for explicit scheduling. */
void detsim__machine_thread_init(detsim_thread *t, const detsim_thread *creator, const pthread_attr_t *attr);
/* Real-time policies: once any thread had SCHED_FIFO or SCHED_RR, the
 * scheduler only picks among the runnable threads of the highest effective
 * priority (SCHED_OTHER, BATCH and IDLE threads are priority 0), as one
 * Linux CPU does; until then nothing is looked at.  Once a thread waited on
 * a PI lock (detsim__pi_ever), PI boosts are computed too (machine_prio.c). */
extern bool detsim__rt_ever;
extern bool detsim__pi_ever;
/* Keeps the candidates of the highest priority among them and `running`
 * (the thread giving up the CPU, when it is runnable): their new count. */
unsigned detsim__machine_rt_filter(detsim_thread **cands, unsigned n, const detsim_thread *running);
/* Keeps the candidates of the highest priority among them (all of them
 * while no thread is real-time): the waiters a wake or a PI unlock takes
 * first, as Linux's priority-ordered wait lists. */
unsigned detsim__machine_rt_top(detsim_thread **cands, unsigned n);
/* The thread's effective real-time priority (0 for the other policies),
 * PI boosts included as of the last detsim__machine_pi_refresh (which
 * every scheduling decision makes). */
int detsim__machine_rt_priority(const detsim_thread *t);
void detsim__machine_pi_refresh(void);
/* A yield point of a run with real-time threads: a runnable thread of a
 * higher priority than `self` runs now (sched.c). */
void detsim__sched_rt_point(detsim_thread *self);
/* 0 or EINVAL, as sched_setscheduler(2) checks a policy and its priority
 * (real-time policies are granted, as to a process with CAP_SYS_NICE). */
int detsim__machine_policy_check(int policy, int prio);
/* Sets the kernel's policy and priority of t (no switch): 0 or EINVAL. */
int detsim__machine_kernel_set(detsim_thread *t, int policy, int prio);
/* glibc's copy of t's policy and priority (read from the kernel's the first
 * time): pthread_getschedparam's answer. */
void detsim__machine_glibc_view(detsim_thread *t, int *policy, int *prio);
/* pthread_setschedparam and pthread_setschedprio as glibc makes them: the
 * kernel's priority stays at least the highest PRIO_PROTECT ceiling held,
 * glibc's copy is what was asked.  0 or EINVAL; no switch. */
int detsim__machine_glibc_setschedparam(detsim_thread *t, int policy, int prio);
int detsim__machine_glibc_setschedprio(detsim_thread *t, int prio);
/* glibc's __pthread_current_priority: the priority a PRIO_PROTECT lock
 * compares with the ceiling. */
int detsim__machine_current_priority(detsim_thread *t);
/* glibc's __pthread_tpp_change_priority for t: counts ceiling `next` in and
 * `previous` out (-1: none) and sets the kernel's priority to match.  0,
 * EAGAIN (a count would wrap) or the kernel's EINVAL; no switch. */
int detsim__machine_tpp_change(detsim_thread *t, int previous, int next);
/* The pid the program sees (one function, so a virtual getpid has one
 * place to be wired). */
pid_t detsim__machine_pid(void);
/* The live simulated threads of this process. */
unsigned detsim__machine_threads(void);

/* ---- machine_cputime.c ---- */

/* Virtual time the whole process ran, threads that finished included. */
extern uint64_t detsim__process_cpu_ns;
/* Charges `ns` of virtual time to thread t, which is running (every
 * advance of the clock by a running thread goes through here; time jumps
 * while every thread waits are nobody's CPU time). */
static inline void detsim__cpu_charge(detsim_thread *t, uint64_t ns) {
  t->cpu_ns += ns;
  detsim__process_cpu_ns += ns;
}
/* True for the CPU-time clock ids: CLOCK_PROCESS_CPUTIME_ID,
 * CLOCK_THREAD_CPUTIME_ID and the dynamic ones of clock_getcpuclockid and
 * pthread_getcpuclockid. */
bool detsim__cpu_clock(clockid_t id);
/* Reads a CPU-time clock: 0 or EINVAL (no such thread or process). */
int detsim__cpu_clock_read(clockid_t id, struct timespec *ts);
/* 0 when a CPU-time clock id names a clock now, EINVAL when not (a bad
 * type, a thread or process that is not there), as Linux checks them. */
int detsim__cpu_clock_valid(clockid_t id);

/* ---- machine_devrandom.c ---- */

/* A simulated descriptor for /dev/urandom or /dev/random opened with
 * access mode `accmode` (O_RDONLY, O_WRONLY, O_RDWR). */
int detsim__devrandom_open(int accmode, bool nonblock, bool cloexec);
/* A stdio stream over the same endless bytes (fopen). */
FILE *detsim__devrandom_fopen(const char *mode);
/* Bytes from the seed's devrandom stream (the caller holds the baton). */
void detsim__devrandom_fill(void *buf, size_t len);
struct net_file;
ssize_t detsim__devrandom_readv(struct net_file *f, const struct iovec *iov, int iovcnt);
ssize_t detsim__devrandom_writev(struct net_file *f, const struct iovec *iov, int iovcnt);
int detsim__devrandom_accmode(const struct net_file *f);
void detsim__devrandom_release(struct net_file *f);

/* freopen of a path with simulated contents: true and *out set (the
 * stream, or NULL with errno), false for any other path (stdio_sim.c). */
bool detsim__machine_freopen(const char *path, const char *mode, FILE *stream, FILE **out);

#endif /* DETSIM_MACHINE_PART_H */
