/* Real signals from outside the simulation (outside_signal.c).
 *
 * A SIGTERM, SIGINT, SIGHUP, SIGQUIT or SIGALRM that the kernel delivers
 * (a CI's timeout, an orchestrator, Ctrl-C, simrun --timeout) is never a
 * simulated one: it ends the run as `inconclusive` with
 * `reason=signal signal=SIG...` on the result line, stdio flushed.  The
 * program's own handlers for those signals are simulated and only run for
 * signals sent inside the simulation.
 */
#ifndef DETSIM_OUTSIDE_SIGNAL_H
#define DETSIM_OUTSIDE_SIGNAL_H

#include <stdint.h>

/* The signal that came, once (0: none yet); a futex word the watchdog
 * waits on. */
extern uint32_t detsim__outside_sig;

/* Installs the real handlers (init, before the program runs). */
void detsim__outside_install(void);
/* The thread holding the baton met an event after the signal came: ends
 * the run there, where stdio can be flushed as at an exit. */
_Noreturn void detsim__outside_end_at_event(void);
/* The watchdog thread saw the signal: gives the holder a moment to end
 * the run at its next event, else ends it itself (a thread stuck outside
 * the simulation), or in a world tells the launcher. */
void detsim__outside_watch(void);
/* Flushes stdout and stderr unless a thread holds their locks: from a
 * thread that must not block (the watchdog, a signal handler). */
void detsim__outside_flush_stdio(void);

#endif
