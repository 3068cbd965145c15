/* detsim-cc --lint: run detsim-lint on the C and C++ sources of a compile
 * before clang compiles them.
 *
 * Off by default.  `--lint` (or DETSIM_LINT=1) fails the compile when
 * detsim-lint names escapes (warnings; notes do not count) or cannot lint
 * a source: clang does not run, the status is 1.  `--lint=warn`
 * (DETSIM_LINT=warn) prints the same findings and compiles anyway.  The
 * sources are linted with the command's own arguments (detsim-lint drops
 * what only a compile needs: -c, -o, dependency files).
 */
#ifndef DETSIM_CC_LINT_H
#define DETSIM_CC_LINT_H

#include <stdbool.h>

enum detsim_cc_lint { DETSIM_CC_LINT_OFF, DETSIM_CC_LINT_FAIL, DETSIM_CC_LINT_WARN };

/* Parses the value of --lint=VALUE or DETSIM_LINT (NULL: plain --lint);
 * -1 for a bad value. */
int detsim_cc_lint_mode(const char *value);

/* Whether a command-line input is a source detsim-lint reads (.c, .cc,
 * .cpp, .cxx, .C). */
bool detsim_cc_lint_is_source(const char *path);

/* Runs detsim-lint (found in `bin_dir`) on the user arguments marked in
 * `is_source`, with the other user arguments as compiler arguments.
 * Returns 0 to go on with the compile, or detsim-cc's exit status. */
int detsim_cc_lint(const char *self_name, const char *bin_dir, char **user, const bool *is_source,
                   int n_user, enum detsim_cc_lint mode);

#endif
