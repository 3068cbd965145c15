/* The queue of real-time signals (signal.c's second and later instances).
 *
 * A standard signal is pending once per target whatever is sent; a
 * real-time one (32 and up, as the kernel counts) queues every instance
 * with its own siginfo, and they are taken in the order sent.  signal.c
 * keeps the first pending instance of each signal in the target's slot (as
 * for a standard signal); the later ones wait here, in one FIFO for the
 * whole process, bounded by DETSIM_MAX_QUEUED_SIGNALS (a send beyond fails
 * with EAGAIN, as Linux's does beyond RLIMIT_SIGPENDING).
 */
#ifndef DETSIM_SIGNAL_QUEUE_H
#define DETSIM_SIGNAL_QUEUE_H

#include <stdbool.h>

#include "sched_internal.h"

/* Whether sig queues its instances. */
static inline bool detsim__sig_queues(int sig) { return sig >= 32; }

/* Appends an instance for `to` (NULL: the process); false when the queue
 * is full. */
bool detsim__sigq_push(const detsim_thread *to, int sig, struct detsim_sig_info info);
/* Takes the oldest queued instance of sig for `to` into *out; false if none. */
bool detsim__sigq_pop(const detsim_thread *to, int sig, struct detsim_sig_info *out);
/* Drops the queued instances of sig (0: every signal) for `to`; to_any:
 * for every target. */
void detsim__sigq_drop(const detsim_thread *to, bool to_any, int sig);
/* Whether a queued instance of sig for `to` came from POSIX timer `timer`. */
bool detsim__sigq_holds_timer(const detsim_thread *to, int sig, int timer);
/* Timer `timer` was deleted: its queued signals stay, no longer its. */
void detsim__sigq_orphan_timer(int timer);

#endif
