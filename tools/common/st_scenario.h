/* Scenario files: the description of a simulated cluster that the launcher
 * starts one process per node from (docs/scenario.md has the format).
 *
 *   level 2
 *   server kv x3: kv_server {name} 7000 {kv:7000}
 *   client load: kv_client 200 {kv:7000}
 *
 * The loader checks everything it can before anything runs: names, counts,
 * placeholders, that each program exists and is executable.  It either
 * returns a complete scenario or fails with "FILE:LINE: problem" naming the
 * offending text, never with half a scenario.  No global state: scenarios
 * are independent values.
 */
#ifndef ST_SCENARIO_H
#define ST_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

/* Nodes in one scenario, servers and clients together: one world's
 * processes share one simulated machine, and 64 is plenty for the
 * replicated services it is meant for. */
#define ST_SCENARIO_NODES_MAX 64
/* A node's name, NUL included: "[a-z][a-z0-9-]*", at most 31 characters. */
#define ST_SCENARIO_NAME_BYTES 32

struct st_scenario_node {
  char name[ST_SCENARIO_NAME_BYTES];
  char group[ST_SCENARIO_NAME_BYTES]; /* the line's NAME */
  unsigned index;                     /* 1-based within the group */
  bool client;                        /* the run passes when every client exits 0 */
  bool protect;                       /* crash faults never pick it */
  unsigned line;                      /* where it was declared */
  char *program;                      /* resolved absolute path */
  char **argv;                        /* argv[0] = program as written, NULL-terminated, placeholders expanded */
  unsigned argc;
  char *data;                         /* `data NAME PATH`: its data directory under its own; NULL: the whole */
  unsigned after1;                    /* `start NAME after NODE listens`: 1 + NODE's index; 0: starts at once */
  unsigned after_line;                /* where that was said */
};

struct st_scenario {
  char *path; /* as given */
  int level;  /* 0 when the file sets none */
  unsigned n_nodes;
  struct st_scenario_node nodes[ST_SCENARIO_NODES_MAX]; /* in declaration order */
  char **options;                                       /* "KEY=VALUE", in file order, for DETSIM_OPTIONS */
  unsigned n_options;
  char **env; /* "KEY=VALUE", in file order, for every node's environment */
  unsigned n_env;
};

/* 0, or -1 with "FILE:LINE: problem" in err (a problem with the file as a
 * whole, such as an unreadable file, has no line: "FILE: problem"). */
int st_scenario_load(const char *path, struct st_scenario *out, char *err, size_t errlen);
void st_scenario_free(struct st_scenario *s);

/* True when the file looks like a scenario (text whose first directive is
 * one of the keywords, in its form), for tools that accept PROGRAM or
 * SCENARIO-FILE. */
bool st_scenario_sniff(const char *path);

#endif
