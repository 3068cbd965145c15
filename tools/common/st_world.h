/* Worlds for the tools: a scenario file (st_scenario.h) runs as one
 * program, simworld, which starts its nodes and behaves like a simulation
 * build to simrun and simreplay (the same first and last lines). */
#ifndef ST_WORLD_H
#define ST_WORLD_H

#include <stdbool.h>

/* When argv[0] is a scenario file or simworld itself, a new argv that runs
 * it: simworld's full path, then the scenario and the rest; else NULL. */
char **st_world_argv(char *const *argv);
/* True when `prog` is simworld (by name). */
bool st_is_simworld(const char *prog);
struct st_scenario;
/* Every node must be a simulation build: a plain binary would run for real,
 * outside the world, with real sockets.  Dies with a harness error naming
 * the node and its line. */
void st_world_check_programs(const struct st_scenario *sc);
/* Checks a scenario before a sweep: it loads, and every node is a
 * simulation build.  Dies with a usage or harness error naming the problem. */
void st_world_preflight(const char *scenario);

#endif
