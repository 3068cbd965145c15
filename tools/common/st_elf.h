/* What an executable's ELF says about detsim, without running it.
 *
 * A simulation build has libdetsim_rt in its DT_NEEDED (detsim-cc links the
 * runtime first) and undefined dynamic symbols such as __detsim_*.  A plain
 * (release) build must have neither: DESIGN.md promises "a release build
 * contains no trace of detsim".  Only the dynamic view (DT_NEEDED and
 * .dynsym) decides, as the loader sees it; local .symtab names (e.g. the
 * release stubs of detsim.h at -O0) are counted for information only.
 */
#ifndef ST_ELF_H
#define ST_ELF_H

#include <stdbool.h>
#include <stdint.h>

struct st_elf_info {
  bool is_elf;          /* a 64-bit ELF file we could read */
  bool needs_runtime;   /* DT_NEEDED names libdetsim_rt */
  int dynamic_detsim;   /* .dynsym names containing "detsim" */
  int local_detsim;     /* .symtab names containing "detsim" */
  char names[256];      /* the first few of the dynamic ones, comma-separated */
  char needed[256];     /* the DT_NEEDED entry naming the runtime */
  uint64_t fuzz_counters; /* bytes of __sancov_cntrs: detsim-cc --fuzz's coverage
                             counters of this file (not its libraries') */
};

/* Inspects `path`.  0, or -1 with errno when it cannot be read; a file that
 * is not ELF gives 0 with is_elf false. */
int st_elf_inspect(const char *path, struct st_elf_info *out);

/* True when the file is an ELF with no sign of detsim in its dynamic view. */
bool st_elf_plain(const struct st_elf_info *e);

#endif
