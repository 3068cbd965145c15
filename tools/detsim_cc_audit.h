/* detsim-cc --audit: link, then run simaudit on what was linked.
 *
 * Off by default.  `--audit` (or DETSIM_AUDIT=1) fails the link when simaudit
 * names escapes: the output is removed, as after any failed link, so a build
 * system does not take it for up to date, and the status is 1.
 * `--audit=warn` (DETSIM_AUDIT=warn) prints the same findings and keeps the
 * link's status.  DETSIM_AUDIT_IGNORE=FILE is passed on as --ignore FILE.
 */
#ifndef DETSIM_CC_AUDIT_H
#define DETSIM_CC_AUDIT_H

#include <stdbool.h>

enum detsim_cc_audit { DETSIM_CC_AUDIT_OFF, DETSIM_CC_AUDIT_FAIL, DETSIM_CC_AUDIT_WARN };

/* Parses the value of --audit=VALUE or DETSIM_AUDIT (NULL: plain --audit);
 * -1 for a bad value. */
int detsim_cc_audit_mode(const char *value);

/* Runs argv to completion and returns its exit status (128+N for a signal),
 * or -1 when it cannot run.  `to_stderr`: its stdout goes to our stderr. */
int detsim_cc_run(const char *self_name, char **argv, bool to_stderr);

/* Runs `cmd` (clang's command line) to completion, then simaudit (found in
 * `bin_dir`) on `output`; returns detsim-cc's exit status. */
int detsim_cc_link_and_audit(const char *self_name, char **cmd, const char *bin_dir,
                             const char *output, enum detsim_cc_audit mode);

#endif
