/* Reading the runtime's trace files, and finding where two histories part.
 *
 * A trace file (runtime/trace/trace.c) is
 *   # detsim trace: events A..B of M (older events dropped|none dropped: trace_events=K)
 *   # seed=S events=M history=H                        (since the replay header)
 *   # replay: DETSIM_SEED=S [DETSIM_OPTIONS=...] COMMAND...   (likewise)
 *   # event time(s) thread kind object value site
 *   <n> t=<sec>.<nsec> T<tid> <kind> obj=0x<hex> val=<v>[ at <site>]
 *   ...                                                (B-A+1 lines, A..B)
 * The line count and numbering are checked against the first header line,
 * so a truncated or corrupted file is reported with the line where it goes
 * wrong, never read as a shorter history.
 *
 * Two traces are compared event by event on what the history hash covers
 * and the time: event number, virtual time, thread, kind, value.  obj= and
 * the call site are addresses (they differ between builds and runs) and
 * are only shown.
 */
#ifndef ST_TRACE_H
#define ST_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct st_trace_event {
  uint64_t n, t_ns, obj;
  unsigned tid;
  const char *node; /* a world's trace: the thread's node (T3@kv2), node_len bytes */
  size_t node_len;
  uint32_t val;
  const char *kind; /* into the file's text, kind_len bytes */
  size_t kind_len;
  const char *site; /* after " at ", site_len bytes; NULL when none */
  size_t site_len;
  const char *line; /* the whole line, line_len bytes */
  size_t line_len;
};

struct st_trace {
  char *data;
  size_t len;
  uint64_t first, last, total, ring; /* from the first header line */
  bool has_id;                       /* the "# seed=" line is there */
  bool world;                        /* a world's merged trace: events no node kept are missing */
  uint64_t seed, events, history;
  char *replay;                      /* after "# replay: ", or NULL */
  struct st_trace_event *ev;
  size_t nev;
};

/* Loads and checks a trace file.  0, or -1 with a message naming the file,
 * the line and the problem in err. */
int st_trace_load(const char *path, struct st_trace *t, char *err, size_t errlen);
/* The same over text in memory (takes ownership of data, NUL-terminated). */
int st_trace_parse(char *data, size_t len, const char *name, struct st_trace *t, char *err, size_t errlen);
void st_trace_free(struct st_trace *t);

struct st_divergence {
  bool found;          /* the traces differ somewhere they both cover */
  uint64_t n;          /* the first event number that differs */
  const struct st_trace_event *a, *b; /* the two events (NULL: that side ended) */
  bool before_kept;    /* the traces differ in length only after one was cut
                          at the front: the divergence is in dropped events */
};
void st_trace_diverge(const struct st_trace *a, const struct st_trace *b, struct st_divergence *d);

/* Writes one event as "n  t=...  T.  kind  val=.  at site" (no obj). */
void st_trace_event_text(const struct st_trace_event *e, char *buf, size_t n);
/* The event numbered n, NULL when the trace does not hold it. */
const struct st_trace_event *st_trace_find(const struct st_trace *t, uint64_t n);

#endif
