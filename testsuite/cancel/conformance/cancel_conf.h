/* Helpers shared by the cancellation conformance programs.
 *
 * Each program checks one rule of pthread_cancel (or of a thread's end) as
 * Linux shows it, and prints what it observes.  CTest runs it natively and as
 * a simulation build under several seeds and requires the same stdout, so a
 * program prints nothing that depends on timing: where a thread must have
 * reached its wait before the cancel, the canceler waits (SETTLE), which is
 * real time natively and virtual time in the simulation.
 */
#ifndef CANCEL_CONF_H
#define CANCEL_CONF_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Long enough for a thread to reach its wait, natively and simulated (a
 * loaded 2-core CI machine took more than 50 ms at times). */
#define SETTLE_US 100000

static inline void settle(void) { usleep(SETTLE_US); }

static inline const char *ename(int e) {
  const char *n = strerrorname_np(e);
  return n ? n : "E?";
}

/* Joins t and prints how it ended: "canceled" or its value. */
static inline void join_report(const char *label, pthread_t t) {
  void *ret = NULL;
  int r = pthread_join(t, &ret);
  if (r != 0)
    printf("%s join=%s\n", label, ename(r));
  else if (ret == PTHREAD_CANCELED)
    printf("%s ended=canceled\n", label);
  else
    printf("%s ended=%ld\n", label, (long)(intptr_t)ret);
  fflush(stdout);
}

#endif
