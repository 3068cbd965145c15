/* --compare RELEASE VERIFY: do two builds take the same history?
 *
 * First each program's ELF is read (st_elf.h):
 *  - RELEASE a plain build (no libdetsim_rt, no detsim dynamic symbols): it
 *    carries no trace of detsim, as DESIGN.md promises; it cannot run under
 *    a seed, so nothing is compared.  Exit 0.
 *  - RELEASE without the runtime but with detsim symbols: a release build
 *    that carries detsim.  Exit 1.
 *  - RELEASE a simulation build (the "release" of history comparison: the
 *    simulation build without --verify): both builds run every seed, traced,
 *    and every seed whose class, history or event count differ is reported
 *    with the first diverging event.  Exit 0 all same, 87 some differ.
 * VERIFY must be a simulation build (else exit 3).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simreplay.h"
#include "st_classes.h"
#include "st_elf.h"
#include "st_seeds.h"

static void inspect(const char *prog, struct st_elf_info *e) {
  char *path = st_find_program(prog);
  if (!path) st_die(ST_EXIT_HARNESS, "harness error: cannot find program '%s'", prog);
  if (st_elf_inspect(path, e) != 0) st_die(ST_EXIT_HARNESS, "harness error: cannot read '%s': %s", path, strerror(errno));
  free(path);
}

/* argv for one of the programs: the program, then the shared arguments. */
static char **program_argv(const char *prog, char **args) {
  int n = 0;
  while (args && args[n]) n++;
  char **v = st_xcalloc((size_t)n + 2, sizeof *v);
  v[0] = (char *)prog;
  for (int i = 0; i < n; i++) v[i + 1] = args[i];
  return v;
}

int sr_compare(const struct sr_args *a) {
  const char *rel = a->compare_release, *ver = a->compare_verify;
  struct st_elf_info er, ev;
  inspect(rel, &er);
  inspect(ver, &ev);
  sr_symbolize_program(rel);
  sr_symbolize_program(ver);
  if (st_elf_plain(&er)) {
    printf("simreplay: %s is a plain build: no libdetsim_rt in DT_NEEDED and no detsim dynamic symbols, so it "
           "carries no trace of detsim",
           rel);
    if (er.local_detsim) printf(" (%d local symbol%s named detsim*: the release stubs of detsim.h)", er.local_detsim, er.local_detsim == 1 ? "" : "s");
    printf(".\nsimreplay: a plain build cannot run under a seed: no histories compared. Compare the simulation "
           "build without --verify against %s instead.\n",
           ver);
    return ST_EXIT_OK;
  }
  if (er.is_elf && !er.needs_runtime) {
    printf("simreplay: %s does not link libdetsim_rt but has detsim dynamic symbols (%s): a release build must carry "
           "no trace of detsim\n",
           rel, er.names);
    return ST_EXIT_FINDINGS;
  }
  if (st_elf_plain(&ev))
    st_die(ST_EXIT_HARNESS, "harness error: '%s' (VERIFY) is not a simulation build: build it with detsim-cc --verify",
           ver);
  struct st_seeds seeds;
  char err[512];
  if (st_seeds_parse(a->seeds_spec ? a->seeds_spec : "10", 10, &seeds, err, sizeof err) != 0)
    st_die(ST_EXIT_USAGE, "%s", err);
  char **argv_r = program_argv(rel, a->argv), **argv_v = program_argv(ver, a->argv);
  const char *options = a->options ? a->options : "";
  uint64_t differ = 0;
  if (!a->quiet) printf("simreplay: comparing %s and %s over %llu seeds (%s)\n", rel, ver, (unsigned long long)seeds.total, seeds.label);
  for (uint64_t i = 0; i < seeds.total; i++) {
    uint64_t seed = st_seeds_at(&seeds, i);
    struct sr_run r, v;
    sr_run(argv_r, seed, options, 0, a->timeout_s, true, NULL, &r);
    sr_run(argv_v, seed, options, r.result ? r.events : 0, a->timeout_s, true, NULL, &v);
    bool same = r.result && v.result && r.cls == v.cls && r.history == v.history && r.events == v.events;
    if (same) {
      if (!a->quiet) printf("simreplay: seed %llu: same history (%s)\n", (unsigned long long)seed, sr_run_text(&r));
    } else {
      differ++;
      printf("simreplay: seed %llu: histories differ\n", (unsigned long long)seed);
      printf("    release: %s\n", sr_run_text(&r));
      printf("    verify:  %s\n", sr_run_text(&v));
      if (r.have_trace && v.have_trace) sr_print_divergence(&r.trace, "release", &v.trace, "verify");
      else printf("simreplay: no traces to compare: %s\n", r.have_trace ? v.trace_err : r.trace_err);
    }
    sr_run_free(&r);
    sr_run_free(&v);
  }
  if (differ) {
    printf("simreplay: diverged: %llu of %llu seeds took different histories in %s and %s\n", (unsigned long long)differ,
           (unsigned long long)seeds.total, rel, ver);
    return st_class_status(ST_CLASS_diverged);
  }
  printf("simreplay: same histories: %llu of %llu seeds\n", (unsigned long long)seeds.total,
         (unsigned long long)seeds.total);
  return ST_EXIT_OK;
}
