/* The public API of detsim.h, and the calls the pass inserts (pass_abi.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../runtime/pass_abi.h"
#define __DETSIM__ 1 /* the runtime implements the simulation-build API */
#define DETSIM_RUNTIME_INTERNAL_ 1 /* no registering constructor of its own */
#include "include/detsim.h"
#include "intercept/intercept.h"
#include "core/core.h"
#include "sched/sched.h"
#include "signal/signal.h"
#include "time/time.h"
#include "trace/trace.h"
#include "world/world.h"

DETSIM_EXPORT void __detsim_yield_access(void *addr, uint32_t kind) {
  detsim__yield_aux(DETSIM_EV_access, addr, (uintptr_t)__builtin_return_address(0), kind);
  if (kind == DETSIM_ACCESS_SETJMP) detsim__sig_note_setjmp(addr);
}

/* A verify check's own work is taken back at its end, as its yield points
 * are suppressed: it must not move the clock of a verify build. */
static __thread unsigned verify_depth;
static __thread uint64_t verify_work_before;

DETSIM_EXPORT void __detsim_verify_begin(void) {
  if (verify_depth++ == 0) verify_work_before = __detsim_work;
  detsim__suppress_begin();
}

DETSIM_EXPORT void __detsim_verify_end(void) {
  detsim__suppress_end();
  if (verify_depth > 0 && --verify_depth == 0) __detsim_work = verify_work_before;
}

DETSIM_EXPORT void __detsim_verify_end_check(int ok, const char *cond, const char *file, int line) {
  __detsim_verify_end();
  if (!ok) detsim_check_failed("verify", cond, file, line);
}

/* ---- invariants ---- */

/* Distinct DETSIM_CHECK names counted for the report. */
#define DETSIM_CHECK_NAMES_MAX 256

static struct {
  const char *name;
  uint64_t passed;
} checks[DETSIM_CHECK_NAMES_MAX];
static unsigned check_names;
static uint64_t checks_overflow;

/* In a world the counts are the world's (every node's, kept in the shared
 * header: nodes may be killed before they could report): the launcher
 * writes them. */
static void count_world_check(const char *name) {
  struct detsim_world_shared *w = detsim__ws;
  for (unsigned i = 0; i < w->n_checks; i++)
    if (!strncmp(w->checks[i].name, name, DETSIM_WORLD_CHECK_NAME_BYTES - 1)) {
      w->checks[i].passed++;
      return;
    }
  if (w->n_checks < DETSIM_WORLD_CHECKS_MAX) {
    snprintf(w->checks[w->n_checks].name, DETSIM_WORLD_CHECK_NAME_BYTES, "%s", name);
    w->checks[w->n_checks++].passed = 1;
  }
}

static void count_check(const char *name) {
  if (detsim__world_hosts()) count_world_check(name);
  for (unsigned i = 0; i < check_names; i++)
    if (checks[i].name == name || !strcmp(checks[i].name, name)) {
      checks[i].passed++;
      return;
    }
  if (check_names < DETSIM_CHECK_NAMES_MAX) {
    checks[check_names].name = name;
    checks[check_names++].passed = 1;
  } else {
    checks_overflow++;
  }
}

/* One line with every check's count, before the result line:
 *   detsim: checked name=count name=count ... */
void detsim__report_checks(void) {
  if (check_names == 0) return;
  char line[4096];
  int k = snprintf(line, sizeof line, "detsim: checked");
  for (unsigned i = 0; i < check_names && k < (int)sizeof line - 64; i++) {
    k += snprintf(line + k, sizeof line - (size_t)k, " ");
    for (const char *p = checks[i].name; *p && k < (int)sizeof line - 32; p++)
      line[k++] = (*p == ' ' || *p == '=' || *p == '\t' || *p == '\n') ? '_' : *p;
    k += snprintf(line + k, sizeof line - (size_t)k, "=%" PRIu64, checks[i].passed);
  }
  if (checks_overflow) k += snprintf(line + k, sizeof line - (size_t)k, " (more names: %" PRIu64 " checks)", checks_overflow);
  if (k > (int)sizeof line - 2) k = (int)sizeof line - 2;
  line[k++] = '\n';
  ssize_t r = write(2, line, (size_t)k);
  (void)r;
}

DETSIM_EXPORT void detsim_check_passed(const char *name) {
  if (detsim__self() == NULL) return;
  count_check(name);
  detsim__yield_aux(DETSIM_EV_check, NULL, (uintptr_t)__builtin_return_address(0), 1);
}

DETSIM_EXPORT void detsim_check_failed(const char *name, const char *cond, const char *file, int line) {
  detsim_thread *self = detsim__self();
  detsim__msg("correctness: check '%s' failed: %s at %s:%d in thread T%u", name, cond, file, line,
              self ? detsim__thread_id(self) : 0);
  char bt[4096];
  detsim__backtrace_text(bt, sizeof bt, 1);
  for (char *l = bt; *l;) {
    char *nl = strchr(l, '\n');
    if (nl) *nl = '\0';
    detsim__msg("    %s", l);
    if (!nl) break;
    l = nl + 1;
  }
  char extra[256];
  snprintf(extra, sizeof extra, "check=");
  size_t k = strlen(extra);
  for (const char *p = name; *p && k < sizeof extra - 1; p++) extra[k++] = (*p == ' ' || *p == '=') ? '_' : *p;
  extra[k] = '\0';
  if (self) detsim__event(DETSIM_EV_check, self, NULL, (uintptr_t)__builtin_return_address(0), 0);
  detsim__finish(DETSIM_CLASS_correctness, 0, extra);
}

/* ---- progress and workload randomness ---- */

static uint64_t progress_count;

DETSIM_EXPORT void detsim_progress(void) {
  progress_count++;
  /* In a world, progress is the world's: it holds off the liveness bound
   * (world_faults.c).  Only a simulated thread holds the world. */
  if (detsim__in_world && detsim__self() != NULL) detsim__world_progress();
}
uint64_t detsim__progress_count(void) { return progress_count; }

static struct detsim_rng workload_rng;
static bool workload_rng_ready;

DETSIM_EXPORT uint64_t detsim_random(void) {
  if (!workload_rng_ready) {
    char label[64];
    detsim__world_label(label, sizeof label, "workload");
    detsim__rng_init(&workload_rng, detsim__seed_child(detsim__seed(), label));
    workload_rng_ready = true;
  }
  uint64_t x = detsim__rng_next(&workload_rng);
  if (detsim__self()) detsim__yield_aux(DETSIM_EV_random, NULL, (uintptr_t)__builtin_return_address(0), 8);
  return x;
}

DETSIM_EXPORT int detsim_active(void) { return detsim__running(); }
