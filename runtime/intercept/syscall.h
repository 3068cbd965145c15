/* System calls by number inside the simulation (syscall_table.def).
 *
 * __detsim_syscall (syscall.c) dispatches on the table; each ROUTE and
 * SIMULATED line has a detsim__sys_<name> here, which takes the six raw
 * arguments and returns as syscall(2) does: the result, or -1 with errno.
 * They run on a simulated thread holding the baton (the dispatcher sends
 * every other caller to the kernel).
 */
#ifndef DETSIM_SYSCALL_H
#define DETSIM_SYSCALL_H

#include <stdint.h>
#include <sys/types.h>

#include "sched.h"

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

#endif
