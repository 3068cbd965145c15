/* Checks before the first seed: is PROGRAM there, is it a simulation
 * build, and which DETSIM_OPTIONS keys does its runtime know.
 *
 * The ELF check only rejects what is certainly not a simulation build: an
 * ELF executable with neither libdetsim_rt in DT_NEEDED nor any detsim
 * dynamic symbol.  Scripts (a libtool wrapper) and LD_PRELOAD setups pass
 * through to the runs, where the missing first line decides.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "simrun.h"
#include "st_child.h"
#include "st_elf.h"
#include "st_world.h"

/* A probe run that prints the runtime's option list and exits before main. */
#define SIMRUN_PROBE_TIMEOUT_S 30

bool simrun_preflight(char **argv) {
  if (st_is_simworld(argv[0])) {
    /* A scenario: simworld checks its nodes, and so does this, once. */
    if (argv[1] == NULL) st_die(ST_EXIT_USAGE, "simworld needs a scenario file");
    st_world_preflight(argv[1]);
    return true;
  }
  char *path = st_find_program(argv[0]);
  if (!path)
    st_die(ST_EXIT_HARNESS, "harness error: cannot find program '%s'%s", argv[0],
           strchr(argv[0], '/') ? "" : " on PATH");
  struct st_elf_info e;
  if (st_elf_inspect(path, &e) != 0)
    st_die(ST_EXIT_HARNESS, "harness error: cannot read program '%s': %s", path, strerror(errno));
  const char *preload = getenv("LD_PRELOAD");
  if (st_elf_plain(&e) && !(preload && strstr(preload, "detsim")))
    st_die(ST_EXIT_HARNESS,
           "harness error: '%s' is not a simulation build: it does not link libdetsim_rt and has no detsim "
           "symbols (build it with detsim-cc)",
           argv[0]);
  free(path);
  return e.needs_runtime;
}

bool simrun_runtime_has_option(char **argv, const char *key) {
  struct st_spawn s = { .argv = argv, .seed = "1", .options = "help=1", .stdout_keep = 1u << 20 };
  struct st_child c;
  if (st_child_run(&c, &s, SIMRUN_PROBE_TIMEOUT_S) != 0) return false;
  /* The runtime prints the list on stdout. */
  char *text = st_capture_text(&c.out);
  bool found = false;
  /* help=1 lists each key as "  <key>   default ..." */
  for (char *l = text; l && *l;) {
    char *nl = strchr(l, '\n');
    size_t n = strlen(key);
    if (!strncmp(l, "  ", 2) && !strncmp(l + 2, key, n) && l[2 + n] == ' ') found = true;
    if (!nl) break;
    l = nl + 1;
  }
  free(text);
  st_child_free(&c);
  return found;
}
