/* Findings in the compiler's format, `file:line:col: warning: WHAT
 * [detsim-CHECK]`, on stdout, each once: a header included by several files
 * reports its findings once per run.  The checks find them in their own
 * order; lint_flush prints a file's findings sorted by place, as a compiler
 * does. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"

static const char *const check_names[] = {
#define DETSIM_LINT_CHECK(id, name, summary) name,
#include "lint_checks.def"
#undef DETSIM_LINT_CHECK
};

const char *lint_check_name(enum lint_check check) { return check_names[check]; }

int lint_check_by_name(const char *name) {
  for (int i = 0; i < LINT_CHECK_COUNT; i++)
    if (strcmp(check_names[i], name) == 0) return i;
  return -1;
}

struct seen {
  char *file;
  unsigned line, col;
  enum lint_check check;
};

static struct seen *seen;
static size_t n_seen;
static int n_warnings, n_notes;

/* The findings of the translation unit being linted, not printed yet. */
struct pending {
  char *text; /* the whole line */
  const struct seen *at;
};
static struct pending *pending;
static size_t n_pending;

static bool already(const char *file, unsigned line, unsigned col, enum lint_check check) {
  for (size_t i = 0; i < n_seen; i++)
    if (seen[i].line == line && seen[i].col == col && seen[i].check == check &&
        strcmp(seen[i].file, file) == 0)
      return true;
  return false;
}

static void remember(const char *file, unsigned line, unsigned col, enum lint_check check) {
  if (n_seen >= LINT_MAX_FINDINGS) {
    fprintf(stderr, "detsim-lint: error: more than %d findings (LINT_MAX_FINDINGS); lint fewer files at a time\n",
            LINT_MAX_FINDINGS);
    exit(LINT_EXIT_USAGE);
  }
  if (seen == NULL) seen = calloc(LINT_MAX_FINDINGS, sizeof *seen);
  char *copy = strdup(file);
  if (seen == NULL || copy == NULL) {
    fprintf(stderr, "detsim-lint: error: out of memory\n");
    exit(LINT_EXIT_USAGE);
  }
  seen[n_seen++] = (struct seen){copy, line, col, check};
}

void lint_report(const struct lint_tu *t, CXCursor c, enum lint_check check,
                 enum lint_severity sev, const char *fmt, ...) {
  if (!t->enabled[check]) return;
  /* A declaration is named where its name is (`unsigned long seed = ...`:
   * at seed), a statement or expression where it starts. */
  CXSourceLocation loc = clang_isDeclaration(clang_getCursorKind(c))
                             ? clang_getCursorLocation(c)
                             : clang_getRangeStart(clang_getCursorExtent(c));
  if (clang_Location_isInSystemHeader(loc)) return;
  CXFile file;
  unsigned line, col;
  clang_getExpansionLocation(loc, &file, &line, &col, NULL);
  if (file == NULL) return; /* a builtin or the command line: nowhere to point */
  CXString name = t->absolute_paths ? clang_File_tryGetRealPathName(file) : clang_getFileName(file);
  const char *path = clang_getCString(name);
  if (path == NULL || *path == '\0') {
    clang_disposeString(name);
    name = clang_getFileName(file);
    path = clang_getCString(name);
  }
  if (!already(path, line, col, check)) {
    remember(path, line, col, check);
    char what[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char *text = NULL;
    if (asprintf(&text, "%s:%u:%u: %s: %s [detsim-%s]", path, line, col,
                 sev == LINT_WARNING ? "warning" : "note", what, check_names[check]) < 0 ||
        (pending == NULL && (pending = calloc(LINT_MAX_FINDINGS, sizeof *pending)) == NULL)) {
      fprintf(stderr, "detsim-lint: error: out of memory\n");
      exit(LINT_EXIT_USAGE);
    }
    pending[n_pending++] = (struct pending){text, &seen[n_seen - 1]};
    if (sev == LINT_WARNING) n_warnings++;
    else n_notes++;
  }
  clang_disposeString(name);
}

static int by_place(const void *a, const void *b) {
  const struct seen *x = ((const struct pending *)a)->at, *y = ((const struct pending *)b)->at;
  int c = strcmp(x->file, y->file);
  if (c != 0) return c;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return (int)x->check - (int)y->check;
}

void lint_flush(void) {
  qsort(pending, n_pending, sizeof *pending, by_place);
  for (size_t i = 0; i < n_pending; i++) {
    puts(pending[i].text);
    free(pending[i].text);
  }
  n_pending = 0;
  fflush(stdout);
}

void lint_counts(int *warnings, int *notes) {
  *warnings = n_warnings;
  *notes = n_notes;
}
