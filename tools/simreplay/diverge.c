/* The report of where two histories part:
 *
 *   first diverging event: 7
 *     run 1:  event 7  t=0.000000060  T3  switch  val=1
 *     run 4:  event 7  t=0.000000060  T2  mutex_lock  val=0  at abba+0x1203
 *     site:   abba+0x1203 (run 4)
 *     source: take_b_then_a /src/abba.c:31 (run 4)
 *
 * Events are compared on number, virtual time, thread, kind and value
 * (st_trace.h); obj= and sites are addresses and only shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simreplay.h"

static void side(const char *name, const struct st_trace_event *e, int width) {
  char line[1024];
  if (e) st_trace_event_text(e, line, sizeof line);
  else snprintf(line, sizeof line, "(no such event: this run ended before it)");
  printf("    %-*s %s\n", width, name, line);
}

bool sr_print_divergence(const struct st_trace *a, const char *name_a, const struct st_trace *b, const char *name_b) {
  struct st_divergence d;
  st_trace_diverge(a, b, &d);
  if (!d.found) {
    if (d.before_kept)
      printf("simreplay: the traces agree on every event both kept (%s from event %llu, %s from event %llu): they "
             "part among the older events the ring dropped (raise DETSIM_OPTIONS trace_events)\n",
             name_a, (unsigned long long)a->first, name_b, (unsigned long long)b->first);
    else
      printf("simreplay: the traces agree on every event (%llu and %llu events): the histories differ only in what "
             "the trace does not show\n",
             (unsigned long long)a->total, (unsigned long long)b->total);
    return false;
  }
  int width = (int)(strlen(name_a) > strlen(name_b) ? strlen(name_a) : strlen(name_b)) + 1;
  char na[80], nb[80];
  snprintf(na, sizeof na, "%s:", name_a);
  snprintf(nb, sizeof nb, "%s:", name_b);
  printf("simreplay: first diverging event: %llu\n", (unsigned long long)d.n);
  side(na, d.a, width);
  side(nb, d.b, width);
  /* The call site, of either side (they may differ). */
  const struct st_trace_event *sa = d.a && d.a->site ? d.a : NULL, *sb = d.b && d.b->site ? d.b : NULL;
  if (sa && sb && (sa->site_len != sb->site_len || strncmp(sa->site, sb->site, sa->site_len)))
    printf("    %-*s %.*s (%s), %.*s (%s)\n", width, "site:", (int)sa->site_len, sa->site, name_a, (int)sb->site_len,
           sb->site, name_b);
  else if (sa || sb)
    printf("    %-*s %.*s\n", width, "site:", (int)(sa ? sa->site_len : sb->site_len), sa ? sa->site : sb->site);
  else
    printf("    %-*s (none recorded: a scheduler event)\n", width, "site:");
  /* The same sites as source lines, where the program's debug info says. */
  for (int k = 0; k < 2; k++) {
    const struct st_trace_event *e = k == 0 ? sa : sb;
    if (!e || (k == 1 && sa && sa->site_len == sb->site_len && !strncmp(sa->site, sb->site, sa->site_len))) continue;
    char *src = sr_symbolize_site(e->site, e->site_len);
    if (src) printf("    %-*s %s (%s)\n", width, "source:", src, k == 0 ? name_a : name_b);
    free(src);
  }
  /* The event before, for context: where the two were still together. */
  const struct st_trace_event *before = d.n > a->first && d.n > b->first ? st_trace_find(a, d.n - 1) : NULL;
  if (before) {
    char line[1024];
    st_trace_event_text(before, line, sizeof line);
    printf("    %-*s %s\n", width, "before:", line);
  }
  return true;
}
