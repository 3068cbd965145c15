/* Thread cancellation (pthread_cancel), as POSIX and glibc give it.
 *
 * A cancel request is a flag on the target; it acts
 *  - deferred (the default): at the target's next cancellation point, one of
 *    the simulated calls POSIX names (each opens with DETSIM_CANCEL_POINT());
 *    a request already pending when the call starts acts at once, and one
 *    that arrives while the call waits ends the wait (as EINTR inside the
 *    runtime, so the call's own paths clean up) and acts as the call
 *    returns; a call that finished its work first returns normally and the
 *    request stays pending;
 *  - asynchronous: at the target's next yield point, since only one thread
 *    runs at a time;
 *  - never while the target's cancel state is disabled.
 * Acting is pthread_exit(PTHREAD_CANCELED): the real unwinding runs the
 * cleanup handlers, and they and the thread-specific data destructors run
 * as the simulated thread (sched.c finishes it from its last destructor
 * round).  A cond wait takes its mutex again before acting; a join that is
 * canceled leaves its target joinable.
 */
#ifndef DETSIM_CANCEL_H
#define DETSIM_CANCEL_H

#include <stdbool.h>
#include <stdint.h>

#include "sched.h"

/* Opens a cancellation point; the scope's end closes it.  Declares a local,
 * so it goes first in an interceptor's body. */
#define DETSIM_CANCEL_POINT() \
  __attribute__((cleanup(detsim__cancel_point_leave), unused)) int detsim__cancel_point_ = \
      detsim__cancel_point_enter((uintptr_t)__builtin_return_address(0))

/* `pc`: the program's call site, for the trace. */
int detsim__cancel_point_enter(uintptr_t pc);
void detsim__cancel_point_leave(int *entered);

/* A wait of the running cancellation point ended for a cancel request (a
 * call that retries on EINTR by itself must stop retrying). */
bool detsim__cancel_cut(void);

/* As detsim__wait, in a cancellation point that must act itself (a cond
 * wait): ECANCELED when a cancel request ended the wait. */
int detsim__wait_cancelable(enum detsim_event_kind kind, const void *obj, uint64_t deadline_ns);

/* Acts on the calling thread's cancel request: never returns.  The trace
 * names the call site of the cancellation point it acts in. */
_Noreturn void detsim__cancel_act(void);

#endif
