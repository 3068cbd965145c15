/* --trace: a run's trace for reading, one event a line in columns:
 *
 *      event  time (s)          thread  kind            value  object              site
 *          0  0.000000000       T1      start               0  0x0
 */
#include <stdio.h>

#include "simreplay.h"

void sr_print_trace(const struct st_trace *t) {
  printf("trace: seed %llu, %llu events, history %016llx", (unsigned long long)t->seed, (unsigned long long)t->total,
         (unsigned long long)t->history);
  if (t->first) printf(" (events before %llu dropped: trace_events=%llu)", (unsigned long long)t->first, (unsigned long long)t->ring);
  if (t->world) printf(" (a world: each event as its node recorded it)");
  printf("\n%10s  %-18s %-10s %-15s %10s  %-18s %s\n", "event", "time (s)", "thread", "kind", "value", "object", "site");
  for (size_t i = 0; i < t->nev; i++) {
    const struct st_trace_event *e = &t->ev[i];
    char tid[64], time[40], obj[24];
    snprintf(tid, sizeof tid, "T%u%s%.*s", e->tid, e->node ? "@" : "", (int)e->node_len, e->node ? e->node : "");
    snprintf(time, sizeof time, "%llu.%09llu", (unsigned long long)(e->t_ns / 1000000000u),
             (unsigned long long)(e->t_ns % 1000000000u));
    snprintf(obj, sizeof obj, "0x%llx", (unsigned long long)e->obj);
    printf("%10llu  %-18s %-10s %-15.*s %10u  %-18s %.*s\n", (unsigned long long)e->n, time, tid, (int)e->kind_len,
           e->kind, e->val, obj, (int)e->site_len, e->site ? e->site : "");
  }
}
