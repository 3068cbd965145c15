/* detsim-lint: a source-level lint, on libclang's C API, that names what the
 * detsim pass cannot fix (spin-waits on plain memory, inline asm, seeds from
 * values the simulation cannot see, raw system calls it does not support,
 * unsupported libc calls), in the compiler's diagnostic format.
 *
 * Layout: detsim-lint.c (arguments, compile database, one parse per file),
 * lint_report.c (printing, de-duplication, counts), lint_ast.c (libclang
 * helpers), lint_tables.c (runtime/intercept_table.def and
 * runtime/syscall_table.def, compiled in), lint_walk.c (one walk of a
 * translation unit that hands each node to the checks), and one file per
 * check: lint_spin.c, lint_asm.c, lint_seed.c, lint_calls.c.
 */
#ifndef DETSIM_LINT_H
#define DETSIM_LINT_H

#include <stdbool.h>
#include <stddef.h>

#include <clang-c/Index.h>

#include "lint_limits.h"

/* Exit statuses, as simaudit's: 0 nothing named, 1 findings (warnings), 2
 * usage error, unreadable input or a file that does not compile. */
enum { LINT_EXIT_CLEAN = 0, LINT_EXIT_FINDINGS = 1, LINT_EXIT_USAGE = 2 };

enum lint_check {
#define DETSIM_LINT_CHECK(id, name, summary) LINT_CHECK_##id,
#include "lint_checks.def"
#undef DETSIM_LINT_CHECK
  LINT_CHECK_COUNT
};

/* A warning is an escape (it counts for the exit status); a note is worth
 * knowing but replays under detsim (a seed from the virtual clock). */
enum lint_severity { LINT_NOTE, LINT_WARNING };

struct lint_tu {
  CXTranslationUnit tu;
  bool enabled[LINT_CHECK_COUNT];
  bool absolute_paths; /* -p mode: files are named by absolute path */
};

/* lint_report.c */
const char *lint_check_name(enum lint_check check);
int lint_check_by_name(const char *name); /* -1: no such check */
/* Report at `c`'s start (its expansion location); findings in system
 * headers and duplicates (same check and place) are dropped.  Exits with
 * status 2 past LINT_MAX_FINDINGS. */
void lint_report(const struct lint_tu *t, CXCursor c, enum lint_check check,
                 enum lint_severity sev, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Prints the findings reported since the last flush, sorted by place. */
void lint_flush(void);
void lint_counts(int *warnings, int *notes);

/* lint_ast.c: small helpers over libclang's cursors. */
size_t lint_children(CXCursor c, CXCursor *out, size_t max);
bool lint_in_system_header(CXCursor c);
/* The source text of `c`, tokens joined (at most `len` - 1 bytes, "..."
 * when cut). */
void lint_text(CXTranslationUnit tu, CXCursor c, char *buf, size_t len);
/* The spelling of `c`'s first token ("" when it has none). */
void lint_first_token(CXTranslationUnit tu, CXCursor c, char *buf, size_t len);
/* The name of the function a call expression calls directly ("" through a
 * pointer). */
void lint_callee_name(CXCursor call, char *buf, size_t len);
/* True for an expression clang keeps unexposed that is an atomic builtin
 * (__atomic_*, __c11_atomic_*, C11 atomic_* macros): a yield point. */
bool lint_is_atomic_builtin(CXTranslationUnit tu, CXCursor c);
/* An integer constant expression's value. */
bool lint_eval_int(CXCursor c, long long *value);
bool lint_type_is_atomic(CXType t);

/* lint_tables.c */
/* The note of an UNSUPPORTED function in runtime/intercept_table.def, or
 * NULL when the table does not class it so. */
const char *lint_unsupported_fn(const char *name);
enum lint_syscall_class { LINT_SYS_OK, LINT_SYS_NOSYS, LINT_SYS_UNSUPPORTED, LINT_SYS_UNKNOWN };
/* What runtime/syscall_table.def says of a number (its name and note). */
enum lint_syscall_class lint_syscall_class(long long number, const char **name, const char **note);
/* An x86 intrinsic (or header wrapper) that runs one of the instructions
 * detsim cannot see: its instruction, or NULL. */
const char *lint_intrinsic_insn(const char *name);

/* The checks: lint_walk.c calls them for every node outside system headers. */
void lint_walk(struct lint_tu *t);
void lint_spin_loop(struct lint_tu *t, CXCursor loop);
void lint_asm_stmt(struct lint_tu *t, CXCursor stmt);
void lint_asm_insns(CXTranslationUnit tu, CXCursor stmt, char *names, size_t len);
/* Why an instruction escapes the simulation and what to do instead. */
const char *lint_insn_why(const char *insn);
void lint_calls_call(struct lint_tu *t, CXCursor call);
void lint_calls_ref(struct lint_tu *t, CXCursor ref);
void lint_seed_tu(struct lint_tu *t);

#endif
