/* An ELF object as simaudit reads it: sections, function symbols, the
 * functions it imports and where its code reaches them, DT_NEEDED and
 * PT_INTERP.  Plain <elf.h> over a read-only mapping; 64-bit x86-64 only
 * (the simulation runs nowhere else).  Nothing here executes the file.
 */
#ifndef AUDIT_ELF_H
#define AUDIT_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct audit_section {
  const char *name;
  uint64_t addr, size;
  const unsigned char *bytes; /* NULL for SHT_NOBITS */
  bool exec;
  bool plt;                   /* .plt, .plt.sec, .plt.got: stubs, not code */
};

struct audit_func {           /* a defined function symbol */
  const char *name;
  uint64_t addr, size;
};

/* An undefined dynamic symbol the object's code reaches through the GOT. */
struct audit_import {
  const char *name;
  const char *from;           /* the version's file (libc.so.6...), or NULL */
  bool is_func;
  uint64_t got;               /* its GOT slot */
  int calls;                  /* call sites found by the scan */
};

/* A PLT stub [start, end) that jumps through the GOT slot of `import`. */
struct audit_plt {
  uint64_t start, end;
  int import;
};

struct audit_elf {
  const char *path;
  const unsigned char *map;
  size_t size;
  struct audit_section *sections;
  int n_sections;
  struct audit_func *funcs;   /* sorted by address */
  int n_funcs;
  struct audit_import *imports;
  int n_imports;
  struct audit_plt *plts;     /* filled by the scan (it disassembles the stubs) */
  int n_plts;
  const char **needed;        /* DT_NEEDED */
  int n_needed;
  const char *interp;         /* PT_INTERP, or NULL */
  bool shared;                /* ET_DYN without PT_INTERP: a library */
};

/* Opens and parses `path`.  0, or -1 with a message in err (missing file,
 * not ELF, not x86-64 ELF64, truncated). */
int audit_elf_open(const char *path, struct audit_elf *e, char *err, size_t errlen);
void audit_elf_close(struct audit_elf *e);

/* The function symbol containing `addr`, or NULL. */
const struct audit_func *audit_elf_func_at(const struct audit_elf *e, uint64_t addr);
/* The import whose GOT slot is `got`, or -1. */
int audit_elf_import_at_got(const struct audit_elf *e, uint64_t got);
/* The import whose PLT stub contains `addr`, or -1. */
int audit_elf_import_at_plt(const struct audit_elf *e, uint64_t addr);

#endif
