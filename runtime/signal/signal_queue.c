/* The queue of real-time signals (signal/signal.h).  Only the baton holder
 * touches it.  Linear scans: it holds at most DETSIM_MAX_QUEUED_SIGNALS
 * entries, and only real-time signals sent while one is already pending
 * enter it. */
#include "signal/signal.h"

#include <string.h>

#include "core/core.h"
#include "limits.h"

struct queued {
  const detsim_thread *to;  /* NULL: process-directed */
  int sig;
  struct detsim_sig_info info;
};

static struct queued q[DETSIM_MAX_QUEUED_SIGNALS];
static unsigned n; /* entries q[0..n-1], oldest first */

static void remove_at(unsigned i) {
  memmove(&q[i], &q[i + 1], (n - i - 1) * sizeof q[0]);
  n--;
}

bool detsim__sigq_push(const detsim_thread *to, int sig, struct detsim_sig_info info) {
  if (n == DETSIM_MAX_QUEUED_SIGNALS) return false;
  q[n++] = (struct queued){ to, sig, info };
  return true;
}

bool detsim__sigq_pop(const detsim_thread *to, int sig, struct detsim_sig_info *out) {
  for (unsigned i = 0; i < n; i++) {
    if (q[i].to != to || q[i].sig != sig) continue;
    *out = q[i].info;
    remove_at(i);
    return true;
  }
  return false;
}

void detsim__sigq_drop(const detsim_thread *to, bool to_any, int sig) {
  for (unsigned i = n; i-- > 0;)
    if ((to_any || q[i].to == to) && (sig == 0 || q[i].sig == sig)) remove_at(i);
}

bool detsim__sigq_holds_timer(const detsim_thread *to, int sig, int timer) {
  for (unsigned i = 0; i < n; i++)
    if (q[i].to == to && q[i].sig == sig && q[i].info.code == SI_TIMER && q[i].info.timer == timer) return true;
  return false;
}

void detsim__sigq_orphan_timer(int timer) {
  for (unsigned i = 0; i < n; i++)
    if (q[i].info.code == SI_TIMER && q[i].info.timer == timer) q[i].info.timer = 0;
}
