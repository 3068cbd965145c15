/* POSIX timers (timer_create and its family) on virtual time.
 *
 * A timer is a clock, its next expiry, an interval, and how it notifies.
 * SIGEV_SIGNAL and SIGEV_THREAD_ID post their signal lazily, as the
 * interval timers do (signal.c): an expired timer's signal counts as
 * pending from its expiry on, and is posted when the pending set is read to
 * be changed.  While its signal is still pending, later expiries are
 * overruns (si_overrun, timer_getoverrun), as in Linux.  SIGEV_THREAD gets
 * a helper thread that waits for each expiry and starts a detached thread
 * running the function (glibc's way).  SIGEV_NONE only keeps time.
 * Every function here runs holding the baton.
 */
#ifndef DETSIM_POSIX_TIMER_H
#define DETSIM_POSIX_TIMER_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "sched_internal.h"

/* The calls; each returns 0 (or the overrun count) or an errno value,
 * negated for timer_getoverrun. */
int detsim__ptimer_create(clockid_t clock, const struct sigevent *sev, timer_t *out);
int detsim__ptimer_settime(timer_t id, int flags, const struct itimerspec *value, struct itimerspec *old);
int detsim__ptimer_gettime(timer_t id, struct itimerspec *out);
int detsim__ptimer_getoverrun(timer_t id);
int detsim__ptimer_delete(timer_t id);
/* The timer's number in trace events (its index + 1; 0 for an unknown id). */
uint32_t detsim__ptimer_number(timer_t id);

/* For signal.c: the earliest expiry of a timer that sends a signal
 * (DETSIM_NO_DEADLINE when none), the signals of those expired by now for
 * thread t (NULL: the process's only), posting them, and the end of a
 * timer's overrun count when its signal is taken (returns the count). */
uint64_t detsim__ptimer_next(void);
uint64_t detsim__ptimer_due_bits(const detsim_thread *t);
void detsim__ptimer_fold(void);
int detsim__ptimer_taken(int timer);
/* This node's CLOCK_REALTIME stepped: timers armed at an absolute realtime
 * time expire when the clock reads it (clock.h). */
void detsim__ptimer_clock_stepped(void);
/* si_timerid of a timer's signal. */
int detsim__ptimer_kernel_id(int timer);

#endif
