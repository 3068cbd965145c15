/* What a run's stderr says about it, by the runtime's contract
 * (DESIGN.md, "Contract: running"):
 *
 *   first line   detsim: seed=<seed> replay: DETSIM_SEED=<seed> <command>
 *   checks       detsim: checked name=count name=count ...
 *   points       detsim: point sometimes=HITS/EVALS NAME   (one line each,
 *                detsim: point reachable=HITS NAME          before the
 *                detsim: point unreachable=HITS NAME        result line)
 *   frames       detsim:     #0 0x<pc> in FUNC+0x<off> (module)
 *   last line    detsim: <class> seed=<seed> events=<n> history=<16 hex>
 *                        sim_time=<s>.<us>s [output=<16 hex>] [key=value ...] [trace=PATH]
 *   bad options  detsim: error: <message>   (exit status 89)
 *
 * A failure's signature, by which simrun groups failures, is
 *   <class>[ <the result line's extra fields but trace=>][ in FUNC]
 * where FUNC is the function of the first `#0` frame on stderr, or for a
 * deadlock the sorted distinct `#0` functions of all blocked threads
 * ("deadlock in main,take_a_then_b,take_b_then_a").
 */
#ifndef ST_OUTCOME_H
#define ST_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct st_check {
  char *name;
  uint64_t count;
};

/* A coverage point's counts in one run (points.c in the runtime). */
enum { ST_POINT_SOMETIMES = 1, ST_POINT_REACHABLE = 2, ST_POINT_UNREACHABLE = 3 };
struct st_point {
  int kind;       /* ST_POINT_* */
  char *name;
  uint64_t hits;  /* reached (SOMETIMES: with its condition true) */
  uint64_t evals; /* reached at all (REACHABLE/UNREACHABLE: = hits) */
};
const char *st_point_kind_name(int kind); /* "sometimes", ... or NULL */
int st_point_kind_find(const char *s, size_t n); /* 0 if none */

struct st_outcome {
  bool first_line; /* the runtime's first line is there */
  char *command;   /* the command after "replay: " on the first line, or NULL */
  bool result;     /* a result line ends the stream (or see below) */
  bool result_not_last; /* the last result line was followed by other output
                           (a stuck thread writing on while the watchdog ended
                           the run): taken, but worth a note */
  int cls;         /* its class (st_classes.h), -1 without one */
  uint64_t seed, events, history, sim_us;
  bool have_output; /* an output=<16 hex> field: the digest of what the program wrote */
  uint64_t output;
  char *detail;    /* result line fields after sim_time=, trace= left out ("" if none) */
  char *trace;     /* the trace= path, or NULL */
  char *logs;      /* a world's logs= directory, or NULL */
  char *frames;    /* see above; NULL when no frame was printed */
  char *usage;     /* the message of a "detsim: error:" line, or NULL */
  struct st_check *checks;
  int nchecks;
  struct st_check *faults;  /* a world's "detsim: faults level=N kind=count ..." line */
  int nfaults;
  struct st_point *points; /* the last block of point lines, duplicates summed */
  int npoints;
};

/* Adds a point's counts to *list (summing one of the same kind and name). */
void st_points_add(struct st_point **list, int *n, int kind, const char *name, uint64_t hits, uint64_t evals);

/* Parses stderr text (NUL-terminated). Never fails: what is missing stays
 * unset. */
void st_outcome_parse(const char *text, struct st_outcome *o);
void st_outcome_free(struct st_outcome *o);
/* The signature (malloc'd). */
char *st_outcome_signature(const struct st_outcome *o);
/* The first n lines of text that are the program's own, not detsim's
 * (not "detsim:" or "simworld:" lines; of a world's "  NODE| " lines those
 * not from the node's runtime), each ending in '\n' (malloc'd), or NULL
 * when there are none. */
char *st_own_lines(const char *text, int n);
/* The last n non-empty lines of text, each ending in '\n' (malloc'd). */
char *st_text_tail(const char *text, int n);

/* Parses one result line (the text from "detsim: <class> seed=" on) into o's
 * result fields; false if it is not one. */
bool st_parse_result_line(const char *line, struct st_outcome *o);
/* Parses a first line "detsim: seed=N replay: ..." ; false if not one. */
bool st_parse_first_line(const char *line, uint64_t *seed, char **command);

#endif
