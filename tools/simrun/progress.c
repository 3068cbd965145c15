/* The live progress line on a terminal: done/total, failures so far and
 * seeds per second, rewritten in place with \r at most ten times a second.
 * Only when stderr is a terminal and not -q: logs stay clean. */
#include <stdio.h>
#include <unistd.h>

#include "simrun.h"

static struct {
  bool on;
  uint64_t total;
  double t0, last;
} P;

void simrun_progress_start(uint64_t total, bool quiet) {
  P.on = !quiet && isatty(2);
  P.total = total;
  P.t0 = P.last = st_now();
}

void simrun_progress_update(uint64_t done, uint64_t failed) {
  if (!P.on) return;
  double now = st_now();
  if (now - P.last < 0.1 && done < P.total) return;
  P.last = now;
  double rate = now > P.t0 ? (double)done / (now - P.t0) : 0;
  fprintf(stderr, "\rsimrun: %llu/%llu seeds, %llu failed, %.1f seeds/s \033[K", (unsigned long long)done,
          (unsigned long long)P.total, (unsigned long long)failed, rate);
  fflush(stderr);
}

void simrun_progress_end(void) {
  if (!P.on) return;
  fprintf(stderr, "\r\033[K");
  fflush(stderr);
}
