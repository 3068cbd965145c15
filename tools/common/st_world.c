/* Worlds for the tools (st_world.h). */
#include "st_world.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "st_elf.h"
#include "st_scenario.h"
#include "st_util.h"

#define SIMWORLD "simworld"

bool st_is_simworld(const char *prog) { return strcmp(st_basename(prog), SIMWORLD) == 0; }

/* simworld next to the running tool (the build tree, an install prefix),
 * else on PATH. */
static char *simworld_path(void) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) {
      slash[1] = '\0';
      char *p = st_xasprintf("%s%s", self, SIMWORLD);
      if (access(p, X_OK) == 0) return p;
      free(p);
    }
  }
  char *p = st_find_program(SIMWORLD);
  if (p == NULL) st_die(ST_EXIT_HARNESS, "harness error: cannot find %s (next to %s or on PATH)", SIMWORLD, st_prog);
  return p;
}

char **st_world_argv(char *const *argv) {
  if (argv == NULL || argv[0] == NULL) return NULL;
  bool launcher = st_is_simworld(argv[0]);
  if (!launcher && !(access(argv[0], F_OK) == 0 && st_scenario_sniff(argv[0]))) return NULL;
  size_t n = 0;
  while (argv[n]) n++;
  char **out = st_xcalloc(n + 2, sizeof *out);
  size_t k = 0;
  out[k++] = simworld_path();
  for (size_t i = launcher ? 1 : 0; i < n; i++) out[k++] = argv[i];
  out[k] = NULL;
  return out;
}

void st_world_check_programs(const struct st_scenario *sc) {
  for (unsigned i = 0; i < sc->n_nodes; i++) {
    struct st_elf_info e;
    const struct st_scenario_node *n = &sc->nodes[i];
    if (st_elf_inspect(n->program, &e) != 0)
      st_die(ST_EXIT_HARNESS, "harness error: %s:%u: node %s: cannot read %s: %s", sc->path, n->line, n->name,
             n->program, strerror(errno));
    if (!e.is_elf || st_elf_plain(&e))
      st_die(ST_EXIT_HARNESS, "harness error: %s:%u: node %s: %s is not a simulation build (build it with detsim-cc)",
             sc->path, n->line, n->name, n->program);
  }
}

void st_world_preflight(const char *scenario) {
  static struct st_scenario sc;
  char err[1024];
  if (st_scenario_load(scenario, &sc, err, sizeof err) != 0) st_die(ST_EXIT_USAGE, "%s", err);
  st_world_check_programs(&sc);
  st_scenario_free(&sc);
}
