/* detsim-lint: names, before anything is built, what the detsim pass cannot
 * fix in C sources: spin-waits on plain memory, inline asm, seeds from
 * values the simulation cannot see, unsupported raw system calls and
 * unsupported libc calls (lint.h has the layout; one file per check).
 *
 *   detsim-lint [options] FILE... [-- COMPILER-ARGS...]
 *   detsim-lint [options] -p BUILD-DIR [FILE...] [-- EXTRA-ARGS...]
 *
 * Rules:
 *  - Each file is parsed by libclang (the clang 19 this project builds
 *    with) as the simulation build sees it: with -D__DETSIM__=1 and
 *    -I PREFIX/include after the file's own arguments, PREFIX found from
 *    /proc/self/exe as detsim-cc finds it.
 *  - -p reads BUILD-DIR/compile_commands.json: each file's own command,
 *    run from its directory, without what only a compile needs (-c, -o,
 *    dependency files, detsim-cc's own flags, plugins); the same goes for
 *    arguments after `--`.  No files named: every file the database lists.
 *  - Findings go to stdout in the compiler's format, then one summary line
 *    (none under --quiet when nothing is named);
 *    errors to stderr as `detsim-lint: error: ...`.  A file that does not
 *    compile is an error (its clang errors are shown), not a clean file.
 *  - Exit status, as simaudit's: 0 no warnings (notes do not count), 1
 *    warnings, 2 usage error, unreadable input or a file that does not
 *    compile.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clang-c/CXCompilationDatabase.h>

#include "lint.h"

static const char *const check_summaries[] = {
#define DETSIM_LINT_CHECK(id, name, summary) summary,
#include "lint_checks.def"
#undef DETSIM_LINT_CHECK
};

static void usage(FILE *f) {
  fputs("usage: detsim-lint [options] FILE... [-- COMPILER-ARGS...]\n"
        "       detsim-lint [options] -p BUILD-DIR [FILE...] [-- EXTRA-ARGS...]\n"
        "\n"
        "Names what the detsim pass cannot fix in C sources, in the compiler's format\n"
        "(file:line:col: warning: ... [detsim-CHECK]).\n"
        "\n"
        "  -p BUILD-DIR       read BUILD-DIR/compile_commands.json (all its files when\n"
        "                     none are named)\n"
        "  --disable=CHECK    skip a check (a comma-separated list, or repeat it)\n"
        "  --list-checks      print the checks and what each names\n"
        "  -q, --quiet        no summary line when nothing is named\n"
        "  -h, --help         this text\n"
        "\n"
        "Checks:\n",
        f);
  for (int i = 0; i < LINT_CHECK_COUNT; i++)
    fprintf(f, "  %-17s  %s\n", lint_check_name((enum lint_check)i), check_summaries[i]);
  fputs("\nExit status: 0 no warnings (notes do not count), 1 warnings, 2 usage error,\n"
        "unreadable input or a file that does not compile.\n",
        f);
}

static _Noreturn void usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "detsim-lint: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (detsim-lint --help)\n");
  exit(LINT_EXIT_USAGE);
}

struct options {
  const char *db_dir;
  const char *files[LINT_MAX_FILES];
  int n_files;
  const char *extra[LINT_MAX_ARGS];
  int n_extra;
  bool enabled[LINT_CHECK_COUNT];
  bool quiet; /* no summary line when nothing is named */
  char include_arg[PATH_MAX + 3];
};

static void disable(struct options *o, const char *list) {
  char *copy = strdup(list);
  if (copy == NULL) abort();
  char *save = NULL;
  for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
    int c = lint_check_by_name(name);
    if (c < 0) usage_error("--disable: no check named '%s'", name);
    o->enabled[c] = false;
  }
  free(copy);
}

static void parse_args(struct options *o, int argc, char **argv) {
  for (int i = 0; i < LINT_CHECK_COUNT; i++) o->enabled[i] = true;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      for (i++; i < argc; i++) {
        if (o->n_extra >= LINT_MAX_ARGS - 4) usage_error("more than %s compiler arguments", "LINT_MAX_ARGS");
        o->extra[o->n_extra++] = argv[i];
      }
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      exit(0);
    } else if (strcmp(a, "--list-checks") == 0) {
      for (int c = 0; c < LINT_CHECK_COUNT; c++)
        printf("%s: %s\n", lint_check_name((enum lint_check)c), check_summaries[c]);
      exit(0);
    } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
      o->quiet = true;
    } else if (strcmp(a, "-p") == 0) {
      if (i + 1 >= argc) usage_error("%s needs a build directory", a);
      o->db_dir = argv[++i];
    } else if (strncmp(a, "-p=", 3) == 0) {
      o->db_dir = a + 3;
    } else if (strcmp(a, "--disable") == 0) {
      if (i + 1 >= argc) usage_error("%s needs a check name", a);
      disable(o, argv[++i]);
    } else if (strncmp(a, "--disable=", 10) == 0) {
      disable(o, a + 10);
    } else if (a[0] == '-' && a[1] != '\0') {
      usage_error("unknown option '%s'", a);
    } else {
      if (o->n_files >= LINT_MAX_FILES) usage_error("more than %s files", "LINT_MAX_FILES");
      o->files[o->n_files++] = a;
    }
  }
  if (o->db_dir == NULL && o->n_files == 0) {
    fprintf(stderr, "detsim-lint: error: no file to lint (name files, or -p BUILD-DIR)\n");
    usage(stderr);
    exit(LINT_EXIT_USAGE);
  }
}

/* -I PREFIX/include, PREFIX being the directory above this program's. */
static void find_include(struct options *o) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  o->include_arg[0] = '\0';
  if (n <= 0) return;
  self[n] = '\0';
  char *bin = dirname(self);
  snprintf(o->include_arg, sizeof o->include_arg, "-I%s/../include", bin);
}

/* Arguments only a compile needs, and detsim-cc's own flags: libclang
 * parses, and must neither write files nor be handed flags clang lacks. */
static int skip_arg(const char *a, const char *next_file) {
  static const char *const with_value[] = {"-o", "-MF", "-MT", "-MQ"};
  static const char *const alone[] = {"-c", "-MD", "-MMD", "-M", "-MM", "-MP", "--verify"};
  for (size_t i = 0; i < sizeof with_value / sizeof *with_value; i++)
    if (strcmp(a, with_value[i]) == 0) return 2;
  for (size_t i = 0; i < sizeof alone / sizeof *alone; i++)
    if (strcmp(a, alone[i]) == 0) return 1;
  if (strncmp(a, "--audit", 7) == 0 || strncmp(a, "--detsim-", 9) == 0 ||
      strncmp(a, "--lint", 6) == 0 || strncmp(a, "-fplugin", 8) == 0 ||
      strncmp(a, "-fpass-plugin", 13) == 0)
    return 1;
  if (next_file != NULL && strcmp(a, next_file) == 0) return 1;
  return 0;
}

static int lint_file(CXIndex index, const struct options *o, const char *file,
                     const char *const *args, int n_args, bool absolute_paths) {
  if (access(file, R_OK) != 0) {
    fprintf(stderr, "detsim-lint: error: %s: cannot open: %s\n", file, strerror(errno));
    return LINT_EXIT_USAGE;
  }
  const char *argv[LINT_MAX_ARGS + 8];
  int n = 0;
  for (int i = 0; i < n_args && n < LINT_MAX_ARGS; i++) argv[n++] = args[i];
  /* The arguments after `--` may be a whole compile command's (detsim-cc
   * --lint passes its own): what only a compile needs goes. */
  for (int i = 0; i < o->n_extra && n < LINT_MAX_ARGS; i++) {
    int skip = skip_arg(o->extra[i], NULL);
    if (skip == 0) argv[n++] = o->extra[i];
    i += skip > 1 ? skip - 1 : 0;
  }
  argv[n++] = "-D__DETSIM__=1";
  if (o->include_arg[0]) argv[n++] = o->include_arg;
  CXTranslationUnit tu = NULL;
  enum CXErrorCode err = clang_parseTranslationUnit2(index, file, argv, n, NULL, 0,
                                                     CXTranslationUnit_None, &tu);
  if (err != CXError_Success || tu == NULL) {
    fprintf(stderr, "detsim-lint: error: %s: libclang cannot parse it (error %d)\n", file, (int)err);
    return LINT_EXIT_USAGE;
  }
  int errors = 0;
  for (unsigned i = 0; i < clang_getNumDiagnostics(tu); i++) {
    CXDiagnostic d = clang_getDiagnostic(tu, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      CXString s = clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions());
      fprintf(stderr, "%s\n", clang_getCString(s));
      clang_disposeString(s);
      errors++;
    }
    clang_disposeDiagnostic(d);
  }
  int status = LINT_EXIT_CLEAN;
  if (errors > 0) {
    fprintf(stderr, "detsim-lint: error: %s: does not compile (%d error%s), not linted\n", file,
            errors, errors == 1 ? "" : "s");
    status = LINT_EXIT_USAGE;
  } else {
    struct lint_tu t = {.tu = tu, .absolute_paths = absolute_paths};
    memcpy(t.enabled, o->enabled, sizeof t.enabled);
    lint_walk(&t);
    lint_flush();
  }
  clang_disposeTranslationUnit(tu);
  return status;
}

/* One compile command of the database: its file, from its directory. */
static int lint_command(CXIndex index, const struct options *o, CXCompileCommand cmd) {
  CXString dir = clang_CompileCommand_getDirectory(cmd);
  CXString file = clang_CompileCommand_getFilename(cmd);
  const char *file_s = clang_getCString(file);
  unsigned n = clang_CompileCommand_getNumArgs(cmd);
  if (n > LINT_MAX_ARGS) {
    fprintf(stderr, "detsim-lint: error: %s: more than %d arguments (LINT_MAX_ARGS)\n", file_s,
            LINT_MAX_ARGS);
    return LINT_EXIT_USAGE;
  }
  CXString *strs = calloc(n + 1, sizeof *strs);
  const char **args = calloc(n + 1, sizeof *args);
  if (strs == NULL || args == NULL) abort();
  int n_args = 0;
  for (unsigned i = 1; i < n; i++) { /* argv[0] is the compiler */
    strs[i] = clang_CompileCommand_getArg(cmd, i);
    const char *a = clang_getCString(strs[i]);
    int skip = skip_arg(a, file_s);
    if (skip == 2) {
      i++;
      if (i < n) strs[i] = clang_CompileCommand_getArg(cmd, i);
    } else if (skip == 0) {
      args[n_args++] = a;
    }
  }
  int saved = open(".", O_RDONLY | O_DIRECTORY);
  int status;
  if (saved < 0 || chdir(clang_getCString(dir)) != 0) {
    fprintf(stderr, "detsim-lint: error: %s: directory %s: %s\n", file_s, clang_getCString(dir),
            strerror(errno));
    status = LINT_EXIT_USAGE;
  } else {
    status = lint_file(index, o, file_s, args, n_args, true);
  }
  if (saved >= 0) {
    if (fchdir(saved) != 0) {
      fprintf(stderr, "detsim-lint: error: cannot return to the working directory: %s\n", strerror(errno));
      exit(LINT_EXIT_USAGE);
    }
    close(saved);
  }
  for (unsigned i = 0; i <= n; i++)
    if (strs[i].data != NULL) clang_disposeString(strs[i]);
  free(strs);
  free(args);
  clang_disposeString(dir);
  clang_disposeString(file);
  return status;
}

/* Whether a command compiles the file whose real path is `real` (its file
 * is relative to its directory). */
static bool command_is_for(CXCompileCommand cmd, const char *real) {
  CXString dir = clang_CompileCommand_getDirectory(cmd);
  CXString file = clang_CompileCommand_getFilename(cmd);
  const char *f = clang_getCString(file);
  char joined[2 * PATH_MAX];
  if (f[0] == '/') snprintf(joined, sizeof joined, "%s", f);
  else snprintf(joined, sizeof joined, "%s/%s", clang_getCString(dir), f);
  char *r = realpath(joined, NULL);
  bool same = r != NULL && strcmp(r, real) == 0;
  free(r);
  clang_disposeString(dir);
  clang_disposeString(file);
  return same;
}

static int worse(int a, int b) { return a > b ? a : b; }

static int lint_database(CXIndex index, const struct options *o, int *n_linted) {
  CXCompilationDatabase_Error err;
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/compile_commands.json", o->db_dir);
  if (access(path, R_OK) != 0) {
    fprintf(stderr, "detsim-lint: error: %s: cannot open: %s\n", path, strerror(errno));
    return LINT_EXIT_USAGE;
  }
  CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(o->db_dir, &err);
  if (err != CXCompilationDatabase_NoError || db == NULL) {
    fprintf(stderr, "detsim-lint: error: %s: not a compile database libclang can read\n", path);
    return LINT_EXIT_USAGE;
  }
  int status = LINT_EXIT_CLEAN;
  if (o->n_files == 0) {
    CXCompileCommands all = clang_CompilationDatabase_getAllCompileCommands(db);
    unsigned n = all ? clang_CompileCommands_getSize(all) : 0;
    if (n == 0) {
      fprintf(stderr, "detsim-lint: error: %s lists no files\n", path);
      status = LINT_EXIT_USAGE;
    }
    if (n > LINT_MAX_FILES) {
      fprintf(stderr, "detsim-lint: error: %s lists %u files, more than %d (LINT_MAX_FILES)\n",
              path, n, LINT_MAX_FILES);
      n = 0;
      status = LINT_EXIT_USAGE;
    }
    for (unsigned i = 0; i < n; i++) {
      status = worse(status, lint_command(index, o, clang_CompileCommands_getCommand(all, i)));
      (*n_linted)++;
    }
    if (all) clang_CompileCommands_dispose(all);
  }
  /* A named file is looked up among the database's own commands: libclang
   * would infer a command for a file the database does not list. */
  CXCompileCommands all = o->n_files > 0 ? clang_CompilationDatabase_getAllCompileCommands(db) : NULL;
  unsigned n_all = all ? clang_CompileCommands_getSize(all) : 0;
  for (int f = 0; f < o->n_files; f++) {
    char *real = realpath(o->files[f], NULL);
    if (real == NULL) {
      fprintf(stderr, "detsim-lint: error: %s: cannot open: %s\n", o->files[f], strerror(errno));
      status = LINT_EXIT_USAGE;
      continue;
    }
    bool found = false;
    /* A file compiled twice (two targets) is linted once: its first command. */
    for (unsigned i = 0; i < n_all && !found; i++) {
      CXCompileCommand cmd = clang_CompileCommands_getCommand(all, i);
      if (!command_is_for(cmd, real)) continue;
      found = true;
      status = worse(status, lint_command(index, o, cmd));
      (*n_linted)++;
    }
    if (!found) {
      fprintf(stderr, "detsim-lint: error: %s: not in %s\n", o->files[f], path);
      status = LINT_EXIT_USAGE;
    }
    free(real);
  }
  if (all) clang_CompileCommands_dispose(all);
  clang_CompilationDatabase_dispose(db);
  return status;
}

int main(int argc, char **argv) {
  static struct options o;
  parse_args(&o, argc, argv);
  find_include(&o);
  CXIndex index = clang_createIndex(0, 0);
  int status = LINT_EXIT_CLEAN, n_linted = 0;
  if (o.db_dir != NULL) {
    status = lint_database(index, &o, &n_linted);
  } else {
    for (int f = 0; f < o.n_files; f++) {
      status = worse(status, lint_file(index, &o, o.files[f], NULL, 0, false));
      n_linted++;
    }
  }
  clang_disposeIndex(index);
  int warnings, notes;
  lint_counts(&warnings, &notes);
  if (warnings + notes == 0 && o.quiet) {
    /* nothing to say */
  } else if (warnings + notes == 0)
    printf("detsim-lint: no findings (%d file%s)\n", n_linted, n_linted == 1 ? "" : "s");
  else
    printf("detsim-lint: %d warning%s, %d note%s (%d file%s)\n", warnings, warnings == 1 ? "" : "s",
           notes, notes == 1 ? "" : "s", n_linted, n_linted == 1 ? "" : "s");
  if (status != LINT_EXIT_CLEAN) return status;
  return warnings > 0 ? LINT_EXIT_FINDINGS : LINT_EXIT_CLEAN;
}
