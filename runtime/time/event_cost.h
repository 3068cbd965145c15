/* The cost model: the virtual time each kind of event takes (event_costs.inc). */
#ifndef DETSIM_EVENT_COST_H
#define DETSIM_EVENT_COST_H

#include <stdint.h>

#include "trace.h"

/* What the calling thread's instrumented code ran (passes/work.c adds to
 * it: IR instructions), and what of it the clock has been advanced for. */
extern __thread uint64_t __detsim_work __attribute__((tls_model("initial-exec")));
extern __thread uint64_t detsim__work_seen __attribute__((tls_model("initial-exec")));
extern uint64_t detsim__work_ps_left;
extern uint64_t detsim__work_ps_per_instr;

/* The virtual ns the work done since the last call took (cost_model). */
static inline uint64_t detsim__work_ns(void) {
  uint64_t w = __detsim_work;
  uint64_t ps = (w - detsim__work_seen) * detsim__work_ps_per_instr + detsim__work_ps_left;
  detsim__work_seen = w;
  detsim__work_ps_left = ps % 1000;
  return ps / 1000;
}

/* Filled from the options (cost_model, yield_step_ns) before the first event. */
extern uint64_t detsim__event_cost_ns[DETSIM_EV_COUNT];
void detsim__event_cost_init(void);

#endif
