/* The cost model's table, filled once from event_costs.inc and the options. */
#include "time/time.h"

#include "core/core.h"
#include "intercept/intercept.h"

uint64_t detsim__event_cost_ns[DETSIM_EV_COUNT];
DETSIM_EXPORT __thread uint64_t __detsim_work __attribute__((tls_model("initial-exec")));
__thread uint64_t detsim__work_seen __attribute__((tls_model("initial-exec")));
uint64_t detsim__work_ps_left;
uint64_t detsim__work_ps_per_instr;

/* Each listed kind's cost plus one, so that 0 means "not listed". */
static const uint64_t listed_plus_one[DETSIM_EV_COUNT] = {
#define DETSIM_COST(kind, ns) [DETSIM_EV_##kind] = (ns) + 1,
#include "event_costs.inc"
#undef DETSIM_COST
};

/* A kind priced twice would take whichever line came last. */
#define DETSIM_COST(kind, ns) DETSIM_COST_ONCE_##kind,
enum { 
#include "event_costs.inc"
  DETSIM_COST_LINES
};
#undef DETSIM_COST

void detsim__event_cost_init(void) {
  detsim__work_ps_per_instr = detsim__opt.cost_model ? detsim__opt.work_ps_per_instr : 0;
  detsim__work_seen = __detsim_work;
  for (unsigned k = 0; k < DETSIM_EV_COUNT; k++) {
    uint64_t listed = listed_plus_one[k];
    detsim__event_cost_ns[k] = detsim__opt.cost_model && listed != 0 ? listed - 1 : detsim__opt.yield_step_ns;
  }
}
