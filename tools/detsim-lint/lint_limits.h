/* detsim-lint's limits, each with why that number.  Reaching one is a clear
 * error (exit status 2), never a silently shorter run. */
#ifndef DETSIM_LINT_LIMITS_H
#define DETSIM_LINT_LIMITS_H

/* Source files in one run (named or from a compile database): a large
 * project has a few thousand translation units. */
#define LINT_MAX_FILES 20000

/* Findings kept for de-duplication across translation units (a header
 * included by many files reports once). */
#define LINT_MAX_FINDINGS 100000

/* Compiler arguments of one file (after `--` or from compile_commands.json). */
#define LINT_MAX_ARGS 4096

/* Children of one AST node that a check looks at (a loop's parts, a call's
 * arguments, a compound statement's statements). */
#define LINT_MAX_CHILDREN 4096

/* Declarations tracked per translation unit by time-seed (variables and
 * functions whose value may come from a clock, a pid or rdtsc). */
#define LINT_MAX_TAINTED 65536

/* Bytes of an asm statement's template or an expression's text in a message. */
#define LINT_MAX_TEXT 512

/* Passes of time-seed's propagation (a = clock(); b = a; srand(b)): each
 * pass follows one more assignment or function; the chains in real code are
 * short. */
#define LINT_MAX_TAINT_PASSES 8

/* How deep spin-wait follows read-only functions calling read-only
 * functions (a getter over a getter); deeper counts as a yield point. */
#define LINT_MAX_READER_DEPTH 4

/* Exits (`if (...) break;`) of one loop that spin-wait looks at; a loop
 * with more is not judged (an exit left out could be its way out). */
#define LINT_MAX_LOOP_EXITS 64

/* Bytes read from where a macro's asm is spelled: the template ends at its
 * first ':' or closing parenthesis, long before. */
#define LINT_MAX_ASM_SPAN 4096

#endif
