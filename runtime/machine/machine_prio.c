/* Priorities: the policy the kernel holds for each thread, glibc's copy of
 * it, PTHREAD_PRIO_PROTECT's raises and PTHREAD_PRIO_INHERIT's boosts, and
 * from them the real-time priority the scheduler picks by.
 *
 * As on Linux with glibc 2.36 there are three views of a thread's
 * priority:
 *  - the kernel's (sched_policy, sched_priority): what sched_setscheduler,
 *    sched_setparam and pthread_setschedparam set, and sched_getparam and
 *    sched_getscheduler show.  A thread inherits its creator's;
 *  - glibc's copy in the thread descriptor (glibc_*): what
 *    pthread_setschedparam and pthread_setschedprio set and
 *    pthread_getschedparam shows, read from the kernel the first time it is
 *    needed and never again (a later sched_setscheduler leaves it stale, as
 *    glibc says it may).  A new thread copies its creator's;
 *  - the effective one: the kernel's, or for the owner of PI locks the
 *    highest of the threads that wait on them, directly or through a chain
 *    of PI locks (pi_boost), as Linux's rt_mutex boosts it.  Nothing shows
 *    it but the schedule.
 * PRIO_PROTECT is glibc's, done in user space: locking a ceiling-C mutex
 * counts C in the thread's map and sets the kernel's priority to the
 * highest ceiling held, or glibc's copy if higher, with glibc's copy of the
 * policy; unlocking counts it down (tpp_change below: glibc's
 * __pthread_tpp_change_priority, including that a failed change leaves its
 * count and maximum raised, so a SCHED_OTHER thread's first lock of a
 * PRIO_PROTECT mutex is EINVAL and its second succeeds).
 */
#include <errno.h>
#include <sched.h>

#include "core/core.h"
#include "limits.h"
#include "machine/machine.h"
#include "sched/sched.h"
#include "sync/sync.h"

bool detsim__rt_ever;
bool detsim__pi_ever;

static bool rt_policy(int policy) { return policy == SCHED_FIFO || policy == SCHED_RR; }

int detsim__machine_policy_check(int policy, int prio) {
  switch (policy) {
  case SCHED_OTHER:
  case SCHED_BATCH:
  case SCHED_IDLE: return prio == 0 ? 0 : EINVAL;
  case SCHED_FIFO:
  case SCHED_RR: return prio >= DETSIM_RT_PRIO_MIN && prio <= DETSIM_RT_PRIO_MAX ? 0 : EINVAL;
  default: return EINVAL;
  }
}

int detsim__machine_kernel_set(detsim_thread *t, int policy, int prio) {
  policy &= ~SCHED_RESET_ON_FORK;
  int e = detsim__machine_policy_check(policy, prio);
  if (e != 0) return e;
  t->sched_policy = policy;
  t->sched_priority = prio;
  if (rt_policy(policy)) detsim__rt_ever = true;
  return 0;
}

/* ---- glibc's copy ---- */

static void glibc_fill(detsim_thread *t) {
  if (!t->glibc_param_known) {
    t->glibc_priority = t->sched_priority;
    t->glibc_param_known = true;
  }
  if (!t->glibc_policy_known) {
    t->glibc_policy = t->sched_policy;
    t->glibc_policy_known = true;
  }
}

void detsim__machine_glibc_view(detsim_thread *t, int *policy, int *prio) {
  glibc_fill(t);
  *policy = t->glibc_policy;
  *prio = t->glibc_priority;
}

int detsim__machine_glibc_setschedparam(detsim_thread *t, int policy, int prio) {
  /* Held PRIO_PROTECT ceilings stay in force. */
  int e = detsim__machine_kernel_set(t, policy, t->tpp_max > prio ? t->tpp_max : prio);
  if (e != 0) return e;
  t->glibc_policy = policy;
  t->glibc_priority = prio;
  t->glibc_policy_known = t->glibc_param_known = true;
  return 0;
}

int detsim__machine_glibc_setschedprio(detsim_thread *t, int prio) {
  int e = detsim__machine_kernel_set(t, t->sched_policy, t->tpp_max > prio ? t->tpp_max : prio);
  if (e != 0) return e;
  t->glibc_priority = prio;
  t->glibc_param_known = true;
  return 0;
}

int detsim__machine_current_priority(detsim_thread *t) {
  glibc_fill(t);
  return t->glibc_priority;
}

/* ---- PRIO_PROTECT ---- */

int detsim__machine_tpp_change(detsim_thread *t, int previous, int next) {
  CHECK(previous == -1 || (previous >= DETSIM_RT_PRIO_MIN && previous <= DETSIM_RT_PRIO_MAX));
  CHECK(next == -1 || (next >= DETSIM_RT_PRIO_MIN && next <= DETSIM_RT_PRIO_MAX));
  int max = t->tpp_max, new_max = max;
  if (next != -1) {
    if (t->tpp_count[next - 1] + 1 == 0) return EAGAIN;
    t->tpp_count[next - 1]++;
    if (next > max) new_max = next;
  }
  if (previous != -1) {
    if (--t->tpp_count[previous - 1] == 0 && max == previous && previous > next) {
      int i = previous - 1;
      while (i >= DETSIM_RT_PRIO_MIN && t->tpp_count[i - 1] == 0) i--;
      new_max = i; /* DETSIM_RT_PRIO_MIN - 1 when none is held */
    }
  }
  if (new_max == max) return 0;
  t->tpp_max = new_max;
  glibc_fill(t);
  int prio = t->glibc_priority;
  if (prio >= new_max && prio >= max) return 0;
  if (prio < new_max) prio = new_max;
  return detsim__machine_kernel_set(t, t->glibc_policy, prio);
}

/* ---- the effective priority ---- */

static int own_priority(const detsim_thread *t) { return rt_policy(t->sched_policy) ? t->sched_priority : 0; }

int detsim__machine_rt_priority(const detsim_thread *t) {
  int p = own_priority(t);
  return t->pi_boost > p ? t->pi_boost : p;
}

/* Every thread's boost, from the PI waits now: each waiter's own priority
 * raises the owner it waits for, that owner's owner if the owner waits on
 * a PI lock itself, and so on down the chain.  A chain that comes back to
 * a thread already on it (PI locks that deadlock) ends after as many steps
 * as there are threads.  Runs at each scheduling decision once a PI wait
 * happened: O(waiters x chain length x threads). */
void detsim__machine_pi_refresh(void) {
  if (!detsim__pi_ever) return;
  for (unsigned i = 0; i < W.slots_used; i++) W.threads[i].pi_boost = 0;
  for (unsigned i = 0; i < W.slots_used; i++) {
    detsim_thread *u = &W.threads[i];
    int p = own_priority(u);
    if (u->state != DETSIM_T_BLOCKED || p == 0) continue;
    detsim_thread *x = detsim__sync_pi_owner(u);
    for (unsigned steps = 0; x != NULL && steps < W.slots_used; steps++) {
      if (x->pi_boost < p) x->pi_boost = p;
      x = x->state == DETSIM_T_BLOCKED ? detsim__sync_pi_owner(x) : NULL;
    }
  }
}

unsigned detsim__machine_rt_filter(detsim_thread **cands, unsigned n, const detsim_thread *running) {
  detsim__machine_pi_refresh();
  int top = running != NULL && running->state == DETSIM_T_RUNNABLE ? detsim__machine_rt_priority(running) : 0;
  for (unsigned i = 0; i < n; i++) {
    int p = detsim__machine_rt_priority(cands[i]);
    if (p > top) top = p;
  }
  if (top == 0) return n;
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++)
    if (detsim__machine_rt_priority(cands[i]) == top) cands[k++] = cands[i];
  return k;
}

unsigned detsim__machine_rt_top(detsim_thread **cands, unsigned n) {
  if (!detsim__rt_ever || n == 0) return n;
  detsim__machine_pi_refresh();
  int top = 0;
  for (unsigned i = 0; i < n; i++) {
    int p = detsim__machine_rt_priority(cands[i]);
    if (p > top) top = p;
  }
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++)
    if (detsim__machine_rt_priority(cands[i]) == top) cands[k++] = cands[i];
  return k;
}
