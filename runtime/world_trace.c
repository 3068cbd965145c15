/* A world's trace is the union of its nodes' rings: each event of the one
 * history is recorded by the node that made it.  Each node writes what it
 * recorded to a part file, <trace>.<node>.<incarnation>, when the world
 * ends badly (asked by the launcher, or as the node that ended it) or, with
 * trace_always, also when it leaves; the launcher merges the parts by event
 * number into <trace> (tools/simworld/trace_merge.c).  A node killed by a
 * crash fault takes its records with it: the merged trace says so. */
#include <inttypes.h>
#include <stdio.h>

#include "options.h"
#include "report.h"
#include "trace.h"
#include "world.h"

void detsim__world_trace_part(void) {
  char base[DETSIM_PATH_BYTES_MAX + 32], part[DETSIM_PATH_BYTES_MAX + 96];
  const char *path = detsim__trace_path(base, sizeof base);
  if (path == NULL) return;
  const struct detsim_world_node *me = &detsim__ws->nodes[detsim__node_index];
  snprintf(part, sizeof part, "%s.%.*s.%u", path, DETSIM_WORLD_NAME_BYTES, me->name, me->incarnation);
  if (detsim__trace_write(part) != 0) detsim__msg("warning: cannot write this node's trace part %s", part);
}
