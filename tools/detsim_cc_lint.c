/* detsim-cc --lint (see detsim_cc_lint.h). */
#include "detsim_cc_lint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detsim_cc_audit.h"

int detsim_cc_lint_mode(const char *value) {
  if (value == NULL || strcmp(value, "1") == 0 || strcmp(value, "fail") == 0)
    return DETSIM_CC_LINT_FAIL;
  if (strcmp(value, "warn") == 0) return DETSIM_CC_LINT_WARN;
  if (strcmp(value, "0") == 0 || value[0] == '\0') return DETSIM_CC_LINT_OFF;
  return -1;
}

bool detsim_cc_lint_is_source(const char *path) {
  const char *dot = strrchr(path, '.');
  if (dot == NULL || strchr(dot, '/') != NULL) return false;
  static const char *const exts[] = {".c", ".cc", ".cpp", ".cxx", ".C"};
  for (size_t i = 0; i < sizeof exts / sizeof *exts; i++)
    if (strcmp(dot, exts[i]) == 0) return true;
  return false;
}

int detsim_cc_lint(const char *self_name, const char *bin_dir, char **user, const bool *is_source,
                   int n_user, enum detsim_cc_lint mode) {
  int n_sources = 0;
  for (int i = 0; i < n_user; i++) n_sources += is_source[i];
  if (n_sources == 0) return 0;
  /* detsim-lint --quiet SOURCES... -- OTHER-ARGS... */
  char **argv = calloc((size_t)n_user + 4, sizeof *argv);
  char *lint = NULL;
  if (argv == NULL || asprintf(&lint, "%s/detsim-lint", bin_dir) < 0) abort();
  int n = 0;
  argv[n++] = lint;
  argv[n++] = "--quiet";
  for (int i = 0; i < n_user; i++)
    if (is_source[i]) argv[n++] = user[i];
  argv[n++] = "--";
  for (int i = 0; i < n_user; i++)
    if (!is_source[i]) argv[n++] = user[i];
  argv[n] = NULL;
  int status = detsim_cc_run(self_name, argv, true);
  free(lint);
  free(argv);
  if (status == 0) return 0;
  const char *what = status == 1 ? "detsim-lint names escapes from the simulation (above)"
                                 : "detsim-lint could not lint the sources (above)";
  if (mode == DETSIM_CC_LINT_WARN) {
    fprintf(stderr, "%s: warning: %s\n", self_name, what);
    return 0;
  }
  fprintf(stderr, "%s: error: %s; the compile fails (--lint=warn only warns)\n", self_name, what);
  return 1;
}
