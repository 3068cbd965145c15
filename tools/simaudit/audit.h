/* simaudit's findings: one escape from the simulation each, with where it is.
 *
 * The kinds are fixed strings because suppression files and CI scripts name
 * them: syscall, rdtsc, rdtscp, rdrand, rdseed, cpuid, atomic, libc, runtime.
 */
#ifndef AUDIT_H
#define AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit_elf.h"

struct audit_finding {
  const char *kind;
  const char *object;     /* the file it is in */
  uint64_t addr;          /* its address in that file (0: none) */
  char *function;         /* the function it is in, or NULL */
  char *detail;           /* the instruction, or the libc function called */
  char *why;              /* one sentence */
  char *file;             /* from the debug info, or NULL */
  unsigned line;
};

struct audit_findings {
  struct audit_finding *v;
  int n, cap;
};

/* Adds a finding; strings are copied. */
struct audit_finding *audit_add(struct audit_findings *f, const char *kind, const char *object,
                                uint64_t addr, const char *function, const char *detail,
                                const char *why);

/* Scans the code of `e` (already opened) and adds its escapes to `out`.
 * `is_program`: the executable itself (it must load the runtime). */
void audit_scan(struct audit_elf *e, bool is_program, struct audit_findings *out);

/* Whether libc function `name` escapes the simulation (false: rewritten,
 * passed through, or known to stay out of the kernel's way); if so, why, in
 * `why`. */
bool audit_libc_escape(const char *name, char *why, size_t len);
/* Whether runtime/intercept_table.def names `name`. */
bool audit_libc_in_table(const char *name);

/* Fills file and line of findings[from..] (all in `object`) from its
 * DWARF via llvm-symbolizer.  False (and a warning once) without it. */
bool audit_symbolize(const char *object, struct audit_finding *v, int n);

#endif
