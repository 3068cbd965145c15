/* Delta debugging (Zeller's ddmin) over a set of items, for both shrinks:
 * a schedule plan's decisions (shrink.c) and a world's faults
 * (shrink_faults.c).  The caller says whether a subset still fails the
 * same way and whether it may run the program again. */
#include <stdlib.h>
#include <string.h>

#include "simreplay.h"

void sr_ddmin(size_t total, bool *keep, const struct sr_ddmin_ops *ops, void *ctx) {
  size_t *cur = st_xcalloc(total + 1, sizeof *cur);
  bool *cand = st_xcalloc(total + 1, sizeof *cand);
  size_t len = 0;
  for (size_t i = 0; i < total; i++)
    if (keep[i]) cur[len++] = i;
  /* Most failures need a handful of items, often none: try none first. */
  memset(cand, 0, total * sizeof *cand);
  if (len > 0 && ops->may_run(ctx) && ops->keeps(ctx, cand)) len = 0;
  size_t n = 2;
  while (len >= 2 && ops->may_run(ctx)) {
    if (n > len) n = len;
    bool reduced = false;
    for (size_t c = 0; c < n && ops->may_run(ctx); c++) {
      size_t lo = c * len / n, hi = (c + 1) * len / n;
      memset(cand, 0, total * sizeof *cand);
      for (size_t i = 0; i < len; i++)
        if (i < lo || i >= hi) cand[cur[i]] = true;
      if (ops->keeps(ctx, cand)) {
        size_t k = 0;
        for (size_t i = 0; i < len; i++)
          if (i < lo || i >= hi) cur[k++] = cur[i];
        len = k;
        n = n > 2 ? n - 1 : 2;
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= len) break;
      n = 2 * n < len ? 2 * n : len;
    }
  }
  /* One item left: is even that one needed? */
  memset(cand, 0, total * sizeof *cand);
  if (len == 1 && ops->may_run(ctx) && ops->keeps(ctx, cand)) len = 0;
  memset(keep, 0, total * sizeof *keep);
  for (size_t i = 0; i < len; i++) keep[cur[i]] = true;
  free(cur);
  free(cand);
}
