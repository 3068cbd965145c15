/* detsim-cc, detsim-c++: the compiler wrapper that makes a simulation build.
 *
 * It is a drop-in CC/CXX (CMake, autotools, Make) in the manner of AFL++'s
 * afl-cc: one straight-line main that checks the environment, picks C or C++
 * by the name it was run as, edits the argument list and execs clang 19.
 *
 * Rules:
 *  - Everything is found relative to the executable's own location
 *    (/proc/self/exe): PREFIX/bin/detsim-cc uses PREFIX/lib/libdetsim.so,
 *    PREFIX/lib/libdetsim_rt.so and PREFIX/include.  The build tree has the
 *    same shape, so the wrapper works identically from build/ and from an
 *    install prefix and never points back into the source or build tree.
 *  - The clang it runs is the one recorded at configure time (the plugin only
 *    loads into the LLVM major it was built against); DETSIM_CLANG and
 *    DETSIM_CLANGXX override it.
 *  - It adds, to every invocation, the plugin and -D__DETSIM__=1 (so -E and
 *    -save-temps see the macro, which the plugin alone cannot give), and
 *    -I PREFIX/include after the user's own -I directories.  Only when the
 *    invocation links an executable does it add the runtime, first in
 *    DT_NEEDED (so it comes before libc: it interposes libc functions), with
 *    an rpath to PREFIX/lib.  Linking is decided by scan_arg() below.
 *  - Its own flags (--verify, --fuzz, --audit, --lint, --detsim-*) are removed
 *    before clang sees them; --audit links in a child and then runs simaudit
 *    (detsim_cc_audit.c) instead of exec'ing clang; --lint runs detsim-lint
 *    on the command's sources first (detsim_cc_lint.c).
 *    A bad one is an error with exit status 2; a missing file of detsim's or
 *    a clang that cannot be run is exit status 1; otherwise the exit status
 *    is clang's.
 *  - The flags it adds sit between --start-no-unused-arguments and
 *    --end-no-unused-arguments, so a link-only or print-only invocation with
 *    -Werror does not fail on "argument unused during compilation".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "detsim_cc_audit.h"
#include "detsim_cc_lint.h"
#include "detsim_cc_config.h"

/* Every environment variable detsim-cc reads. */
#define DETSIM_CC_ENV_CLANG "DETSIM_CLANG"     /* the C compiler to exec */
#define DETSIM_CC_ENV_CLANGXX "DETSIM_CLANGXX" /* the C++ compiler to exec */
#define DETSIM_CC_ENV_DEBUG "DETSIM_CC_DEBUG"  /* 1: print the final command */

/* Exit statuses of detsim-cc itself (clang's own pass through unchanged). */
#define DETSIM_CC_EXIT_SETUP 1 /* detsim's files or clang missing */
#define DETSIM_CC_EXIT_USAGE 2 /* a bad detsim-cc flag or combination */

/* Response files nest; a loop of @files must not recurse forever. */
#define DETSIM_CC_RSP_DEPTH_MAX 8
/* A response file larger than this is refused (exit status 2). */
#define DETSIM_CC_RSP_BYTES_MAX (64L * 1024 * 1024)
/* Arguments detsim-cc adds at most (step 6 of main). */
#define DETSIM_CC_ADDED_ARGS_MAX 32

#define DETSIM_PLUGIN_NAME "libdetsim.so"
#define DETSIM_RUNTIME_NAME "libdetsim_rt.so"

static const char *self_name = "detsim-cc";

static void die(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

static void die(int status, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: error: ", self_name);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(status);
}

static char *xstrdup(const char *s) {
  char *p = strdup(s);
  if (p == NULL) die(DETSIM_CC_EXIT_SETUP, "out of memory");
  return p;
}

static char *concat(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *p = malloc(la + lb + 1);
  if (p == NULL) die(DETSIM_CC_EXIT_SETUP, "out of memory");
  memcpy(p, a, la);
  memcpy(p + la, b, lb + 1);
  return p;
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* What the argument list asks clang to do, as far as linking is concerned. */
struct scan {
  bool stops_before_link;  /* -c, -S, -E, -M, -MM, -fsyntax-only, ... */
  bool not_executable;     /* -shared or -r: the output is not a program */
  const char *static_flag; /* -static or -static-pie, if given */
  int inputs;              /* files (or "-") given to the driver */
  char *output;            /* -o's value (for --audit), or NULL */
  bool output_pending;     /* the previous option was -o or --output */
  bool value_pending;      /* the previous option takes this one as value */
  unsigned sanitizers;     /* SAN_* named by -fsanitize= options */
  bool static_libsan;      /* -static-libsan */
  bool options_ended;      /* after "--" everything is an input */
  bool last_was_input;     /* the argument just scanned is an input file */
};

/* Sanitizers a simulation build treats apart (see sanitizer_rules()). */
enum {
  SAN_ADDRESS = 1u << 0,
  SAN_THREAD = 1u << 1,
  SAN_MEMORY = 1u << 2,
  SAN_LEAK = 1u << 3,
  SAN_OTHER = 1u << 4, /* undefined, integer, bounds, ...: a runtime of their own too */
};

/* Notes the sanitizers one -fsanitize=a,b,c list names. */
static unsigned sanitizers_named(const char *list) {
  static const struct { const char *name; unsigned bit; } known[] = {
      {"address", SAN_ADDRESS}, {"thread", SAN_THREAD}, {"memory", SAN_MEMORY}, {"leak", SAN_LEAK},
  };
  unsigned bits = 0;
  const char *p = list;
  while (*p) {
    size_t len = strcspn(p, ",");
    unsigned bit = len ? SAN_OTHER : 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
      if (strlen(known[i].name) == len && strncmp(p, known[i].name, len) == 0) bit = known[i].bit;
    bits |= bit;
    p += len;
    if (*p == ',') p++;
  }
  return bits;
}

/* Options that stop the driver before the link step. */
static const char *const stop_options[] = {
    "-c", "-S", "-E", "-M", "-MM", "-fsyntax-only", "--precompile",
    "-emit-ast", "--analyze", "--compile", "--assemble", "--preprocess",
    "--dependencies", "--user-dependencies", NULL,
};

/* Options whose value is the next argument when written apart (`-o out`):
 * the value is not an input file.  The joined forms (`-oout`, `-MFx.d`) are
 * one argument and need no entry. */
static const char *const options_with_value[] = {
    "-o", "-x", "-I", "-D", "-U", "-L", "-l", "-F", "-A", "-B", "-T", "-u",
    "-z", "-e", "-MF", "-MT", "-MQ", "-MJ", "-include", "-imacros",
    "-isystem", "-iquote", "-idirafter", "-iprefix", "-iwithprefix",
    "-iwithprefixbefore", "-isysroot", "--sysroot", "-cxx-isystem",
    "-iframework", "-imultilib", "-isystem-after", "-ivfsoverlay",
    "-Xlinker", "-Xclang", "-Xassembler", "-Xpreprocessor", "-Xanalyzer",
    "-Xopenmp-target", "-Xcuda-fatbinary", "-Xcuda-ptxas", "-Xarch_host",
    "-Xarch_device", "-mllvm", "-target", "-arch", "-dumpdir", "-dumpbase",
    "-dumpbase-ext", "--param", "-working-directory",
    "--serialize-diagnostics", "-dependency-file", "-dependency-dot",
    "-resource-dir", "--config", "-rpath", "--output", "--include-directory",
    "--define-macro", "--undefine-macro", "--library-directory", "--language",
    NULL,
};

static bool in_list(const char *arg, const char *const *list) {
  for (size_t i = 0; list[i] != NULL; i++)
    if (strcmp(arg, list[i]) == 0) return true;
  return false;
}

static void scan_rsp_file(struct scan *s, const char *path, int depth);

/* Classifies one argument as clang's driver will see it.  `from_rsp` is true
 * for arguments read out of a response file, which detsim-cc passes on
 * unchanged and therefore cannot strip its own flags from. */
static void scan_arg(struct scan *s, const char *arg, bool from_rsp, int depth) {
  s->last_was_input = false;
  if (s->value_pending) {
    s->value_pending = false;
    if (s->output_pending) s->output = xstrdup(arg);
    s->output_pending = false;
    return;
  }
  if (s->options_ended || strcmp(arg, "-") == 0) {
    s->inputs++;
    s->last_was_input = !from_rsp;
    return;
  }
  if (arg[0] == '@' && arg[1] != '\0') {
    scan_rsp_file(s, arg + 1, depth + 1);
    return;
  }
  if (arg[0] != '-') {
    s->inputs++;
    s->last_was_input = !from_rsp;
    return;
  }
  if (from_rsp && (strcmp(arg, "--verify") == 0 || strcmp(arg, "--fuzz") == 0 || strncmp(arg, "--detsim-", 9) == 0 ||
                   strcmp(arg, "--audit") == 0 || strncmp(arg, "--audit=", 8) == 0 ||
                   strcmp(arg, "--lint") == 0 || strncmp(arg, "--lint=", 7) == 0))
    die(DETSIM_CC_EXIT_USAGE,
        "'%s' inside a response file: detsim-cc's own flags must be given on its "
        "command line", arg);
  if (strcmp(arg, "--") == 0) {
    s->options_ended = true;
  } else if (in_list(arg, stop_options)) {
    s->stops_before_link = true;
  } else if (strcmp(arg, "-shared") == 0 || strcmp(arg, "--shared") == 0 ||
             strcmp(arg, "-r") == 0) {
    s->not_executable = true;
  } else if (strcmp(arg, "-static") == 0 || strcmp(arg, "--static") == 0 ||
             strcmp(arg, "-static-pie") == 0) {
    s->static_flag = arg;
  } else if (strncmp(arg, "-fsanitize=", 11) == 0) {
    s->sanitizers |= sanitizers_named(arg + 11);
  } else if (strcmp(arg, "-static-libsan") == 0) {
    s->static_libsan = true;
  } else if (in_list(arg, options_with_value)) {
    s->value_pending = true;
    s->output_pending = strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0;
  } else if (strncmp(arg, "-o", 2) == 0) {
    s->output = xstrdup(arg + 2);
  } else if (strncmp(arg, "--output=", 9) == 0) {
    s->output = xstrdup(arg + 9);
  }
}

/* Reads a response file the way clang does (GNU quoting: whitespace splits,
 * backslash escapes, '…' and "…" quote) to see what it asks for.  The file
 * itself is passed on to clang untouched.  A file that cannot be read is an
 * input to clang (it says so itself), and counts as one here. */
static void scan_rsp_file(struct scan *s, const char *path, int depth) {
  if (depth > DETSIM_CC_RSP_DEPTH_MAX)
    die(DETSIM_CC_EXIT_USAGE, "response files nested deeper than %d at @%s",
        DETSIM_CC_RSP_DEPTH_MAX, path);
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    s->inputs++;
    return;
  }
  char *tok = NULL;
  size_t len = 0, cap = 0;
  bool in_tok = false;
  int quote = 0;
  long bytes = 0;
  int c;
  while ((c = fgetc(f)) != EOF) {
    if (++bytes > DETSIM_CC_RSP_BYTES_MAX)
      die(DETSIM_CC_EXIT_USAGE, "response file @%s is larger than %ld bytes", path,
          DETSIM_CC_RSP_BYTES_MAX);
    bool split = false;
    if (quote == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      split = true;
    } else if (c == '\\' && quote != '\'') {
      c = fgetc(f);
      if (c == EOF) break;
      in_tok = true;
    } else if (quote == 0 && (c == '\'' || c == '"')) {
      quote = c;
      in_tok = true;
      continue;
    } else if (quote != 0 && c == quote) {
      quote = 0;
      continue;
    } else {
      in_tok = true;
    }
    if (split) {
      if (in_tok) {
        tok[len] = '\0';
        scan_arg(s, tok, true, depth);
        len = 0;
        in_tok = false;
      }
      continue;
    }
    if (len + 2 > cap) {
      cap = cap ? cap * 2 : 256;
      tok = realloc(tok, cap);
      if (tok == NULL) die(DETSIM_CC_EXIT_SETUP, "out of memory");
    }
    tok[len++] = (char)c;
  }
  if (in_tok) {
    if (tok == NULL) tok = xstrdup("");
    else tok[len] = '\0';
    scan_arg(s, tok, true, depth);
  }
  free(tok);
  fclose(f);
}

/* The directory holding this executable, with symlinks resolved: bin/ of
 * the build tree or of an install prefix. */
static char *self_bin_dir(void) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0 || (size_t)n >= sizeof buf - 1)
    die(DETSIM_CC_EXIT_SETUP, "cannot read /proc/self/exe: %s",
        n < 0 ? strerror(errno) : "path too long");
  buf[n] = '\0';
  char *slash = strrchr(buf, '/');
  if (slash == NULL || slash == buf)
    die(DETSIM_CC_EXIT_SETUP, "unexpected location of detsim-cc: %s", buf);
  *slash = '\0';
  return xstrdup(buf);
}

static void print_help(const char *prefix, const char *clang, bool cxx) {
  printf("usage: %s [--verify] [--fuzz] [--audit[=warn]] [--lint[=warn]] [%s arguments...]\n"
         "\n"
         "detsim %s: makes a deterministic simulation build of a C or C++ program.\n"
         "Use it as CC (detsim-cc) or CXX (detsim-c++) for CMake, autotools and Make.\n"
         "\n"
         "detsim-cc's own flags (removed before clang sees them):\n"
         "  --verify          a verify build: compile in DETSIM_VERIFY(...) checks\n"
         "                    (adds -fplugin-arg-detsim-verify -D__DETSIM_VERIFY__=1)\n"
         "  --fuzz            a fuzz build for simfuzz: the program's edges get coverage\n"
         "                    counters (adds -fsanitize-coverage=inline-8bit-counters)\n"
         "  --audit[=warn]    after a link, run simaudit on the output: escapes from the\n"
         "                    simulation fail the link (=warn: only print them);\n"
         "                    also DETSIM_AUDIT=1|warn, DETSIM_AUDIT_IGNORE=suppressions\n"
         "  --lint[=warn]     before compiling, run detsim-lint on the C/C++ sources:\n"
         "                    escapes it names fail the compile (=warn: only print\n"
         "                    them); also DETSIM_LINT=1|warn\n"
         "  --detsim-help     print this help\n"
         "  --detsim-version  print detsim's version and the clang it runs\n"
         "Everything else goes to clang unchanged.\n"
         "\n"
         "What it adds:\n"
         "  always            -fplugin=%s/lib/" DETSIM_PLUGIN_NAME " -D__DETSIM__=1\n"
         "                    -I%s/include (after your own -I directories)\n"
         "  when linking an   -ldetsim_rt (first in DT_NEEDED, before libc, which it\n"
         "  executable        interposes) -L%s/lib -Wl,-rpath,%s/lib -lpthread\n"
         "Not linking: -c, -S, -E, -M, -MM, -fsyntax-only, no input files, -shared and\n"
         "-r (a shared library is instrumented but takes the runtime from the program\n"
         "that loads it, so it cannot link with -Wl,-z,defs).  -static cannot link the\n"
         "runtime and is refused.\n"
         "\n"
         "Environment:\n"
         "  " DETSIM_CC_ENV_CLANG "    the C compiler to run (now: %s)\n"
         "  " DETSIM_CC_ENV_CLANGXX "  the C++ compiler to run\n"
         "                  (either must be clang 19: the plugin is built for LLVM 19)\n"
         "  " DETSIM_CC_ENV_DEBUG "=1  print the final command line on stderr\n"
         "\n"
         "Exit status: clang's; 2 for a bad detsim-cc flag; 1 when detsim's own files\n"
         "or clang cannot be found, or when --audit or --lint names escapes.\n",
         cxx ? "detsim-c++" : "detsim-cc", cxx ? "clang++" : "clang", DETSIM_VERSION,
         prefix, prefix, prefix, prefix, clang);
}

/* Prints argv as a shell command line (for DETSIM_CC_DEBUG). */
static void print_command(char *const *argv) {
  fprintf(stderr, "%s: exec:", self_name);
  for (size_t i = 0; argv[i] != NULL; i++) {
    const char *a = argv[i];
    bool plain = a[0] != '\0' && strspn(a, "abcdefghijklmnopqrstuvwxyz"
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_=+/.,:@%") == strlen(a);
    if (plain) {
      fprintf(stderr, " %s", a);
      continue;
    }
    fputs(" '", stderr);
    for (; *a; a++) {
      if (*a == '\'') fputs("'\\''", stderr);
      else fputc(*a, stderr);
    }
    fputc('\'', stderr);
  }
  fputc('\n', stderr);
}

int main(int argc, char **argv) {
  /* 1. Mode, from the name we were run as: detsim-c++ (any name ending in
   *    "++") is C++, anything else C. */
  const char *base = argc > 0 && argv[0] != NULL ? argv[0] : "detsim-cc";
  if (strrchr(base, '/') != NULL) base = strrchr(base, '/') + 1;
  size_t base_len = strlen(base);
  bool cxx = base_len >= 2 && strcmp(base + base_len - 2, "++") == 0;
  self_name = cxx ? "detsim-c++" : "detsim-cc";

  /* 2. Environment. */
  const char *debug_env = getenv(DETSIM_CC_ENV_DEBUG);
  bool debug = false;
  if (debug_env != NULL && debug_env[0] != '\0') {
    if (strcmp(debug_env, "1") == 0) debug = true;
    else if (strcmp(debug_env, "0") != 0)
      die(DETSIM_CC_EXIT_USAGE, "%s=%s: expected 0 or 1", DETSIM_CC_ENV_DEBUG, debug_env);
  }
  const char *clang_env = getenv(cxx ? DETSIM_CC_ENV_CLANGXX : DETSIM_CC_ENV_CLANG);
  bool clang_overridden = clang_env != NULL && clang_env[0] != '\0';
  const char *clang = clang_overridden ? clang_env : cxx ? DETSIM_CLANGXX_PATH : DETSIM_CLANG_PATH;

  /* 3. Where detsim's files are: relative to this executable. */
  char *bin_dir = self_bin_dir();
  char *slash = strrchr(bin_dir, '/');
  char *prefix = xstrdup(bin_dir);
  prefix[slash - bin_dir] = '\0';
  if (prefix[0] == '\0') {
    free(prefix);
    prefix = xstrdup("/");
  }
  char *lib_dir = concat(prefix, strcmp(prefix, "/") == 0 ? "lib" : "/lib");
  char *include_dir = concat(prefix, strcmp(prefix, "/") == 0 ? "include" : "/include");
  char *plugin = concat(lib_dir, "/" DETSIM_PLUGIN_NAME);
  char *runtime = concat(lib_dir, "/" DETSIM_RUNTIME_NAME);
  char *tsan_defaults = concat(lib_dir, "/libdetsim_tsan_defaults.a");
  char *fuzz_hook = concat(lib_dir, "/libdetsim_fuzz_hook.a");
  char *msan_lib_dir = concat(lib_dir, "/msan");
  char *msan_runtime = concat(msan_lib_dir, "/" DETSIM_RUNTIME_NAME);

  /* 4. Our own flags come out; everything else is scanned and kept. */
  char **user = calloc((size_t)argc + 1, sizeof *user);
  if (user == NULL) die(DETSIM_CC_EXIT_SETUP, "out of memory");
  int n_user = 0;
  bool verify = false;
  bool fuzz = false;
  int audit = getenv("DETSIM_AUDIT") ? detsim_cc_audit_mode(getenv("DETSIM_AUDIT")) : DETSIM_CC_AUDIT_OFF;
  if (audit < 0)
    die(DETSIM_CC_EXIT_USAGE, "DETSIM_AUDIT=%s: expected 0, 1, fail or warn", getenv("DETSIM_AUDIT"));
  int lint = getenv("DETSIM_LINT") ? detsim_cc_lint_mode(getenv("DETSIM_LINT")) : DETSIM_CC_LINT_OFF;
  if (lint < 0)
    die(DETSIM_CC_EXIT_USAGE, "DETSIM_LINT=%s: expected 0, 1, fail or warn", getenv("DETSIM_LINT"));
  bool *is_source = calloc((size_t)argc + 1, sizeof *is_source);
  if (is_source == NULL) die(DETSIM_CC_EXIT_SETUP, "out of memory");
  struct scan s = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!s.value_pending && !s.options_ended) {
      if (strcmp(a, "--verify") == 0) {
        verify = true;
        continue;
      }
      if (strcmp(a, "--fuzz") == 0) {
        fuzz = true;
        continue;
      }
      if (strcmp(a, "--audit") == 0 || strncmp(a, "--audit=", 8) == 0) {
        audit = detsim_cc_audit_mode(a[7] == '=' ? a + 8 : NULL);
        if (audit < 0) die(DETSIM_CC_EXIT_USAGE, "'%s': expected --audit, --audit=fail or --audit=warn", a);
        continue;
      }
      if (strcmp(a, "--lint") == 0 || strncmp(a, "--lint=", 7) == 0) {
        lint = detsim_cc_lint_mode(a[6] == '=' ? a + 7 : NULL);
        if (lint < 0) die(DETSIM_CC_EXIT_USAGE, "'%s': expected --lint, --lint=fail or --lint=warn", a);
        continue;
      }
      if (strncmp(a, "--verify=", 9) == 0)
        die(DETSIM_CC_EXIT_USAGE, "'%s': --verify takes no value", a);
      if (strcmp(a, "--detsim-help") == 0) {
        print_help(prefix, clang, cxx);
        return 0;
      }
      if (strcmp(a, "--detsim-version") == 0) {
        printf("%s (detsim) %s\nclang: %s\nprefix: %s\n", self_name, DETSIM_VERSION, clang,
               prefix);
        return 0;
      }
      if (strncmp(a, "--detsim-", 9) == 0)
        die(DETSIM_CC_EXIT_USAGE,
            "unknown detsim-cc flag '%s' (its flags: --verify, --fuzz, --audit, --lint, --detsim-help, "
            "--detsim-version)", a);
    }
    scan_arg(&s, a, false, 0);
    is_source[n_user] = s.last_was_input && detsim_cc_lint_is_source(a);
    user[n_user++] = argv[i];
  }
  bool links = !s.stops_before_link && !s.not_executable && s.inputs > 0;

  /* 5. Refuse what cannot work, before clang runs. */
  if (links && s.static_flag != NULL)
    die(DETSIM_CC_EXIT_USAGE,
        "'%s' cannot link a simulation build: the detsim runtime is a shared "
        "library that must interpose libc", s.static_flag);
  /* MemorySanitizer's rule is that all code is instrumented: its builds link
   * the runtime's MSan-instrumented copy, from a directory of its own. */
  bool msan = links && (s.sanitizers & SAN_MEMORY);
  if (msan && !is_file(msan_runtime))
    die(DETSIM_CC_EXIT_SETUP, "detsim's MemorySanitizer runtime is missing: %s (is detsim built or "
        "installed completely? it is built where clang's libclang_rt.msan-x86_64.a was found)", msan_runtime);
  /* ASan's and TSan's runtimes as libraries of their own.  LeakSanitizer
   * alone, UBSan alone and MemorySanitizer are static only: clang links them
   * into the executable, where the runtime finds their code by its symbols. */
  bool shared_libsan = links && (s.sanitizers & (SAN_ADDRESS | SAN_THREAD));
  if (shared_libsan && s.static_libsan)
    die(DETSIM_CC_EXIT_USAGE,
        "-static-libsan cannot link a sanitized simulation build: the sanitizer "
        "runtime must be a shared library of its own, so that the detsim runtime "
        "can tell the sanitizer's own calls from the program's");
  if (shared_libsan && DETSIM_CLANG_RT_DIR[0] == '\0')
    die(DETSIM_CC_EXIT_SETUP,
        "clang's shared sanitizer runtimes (libclang_rt.asan-x86_64.so) were not "
        "found when detsim was configured; install them (libclang-rt-19-dev) "
        "and configure again");
  if (links && (s.sanitizers & SAN_THREAD) && !is_file(tsan_defaults))
    die(DETSIM_CC_EXIT_SETUP, "detsim's ThreadSanitizer defaults are missing: %s (is detsim "
        "built or installed completely?)", tsan_defaults);
  if (links && fuzz && s.sanitizers && !is_file(fuzz_hook))
    die(DETSIM_CC_EXIT_SETUP, "detsim's coverage hook for sanitized --fuzz builds is missing: %s (is detsim "
        "built or installed completely?)", fuzz_hook);
  if (!is_file(plugin))
    die(DETSIM_CC_EXIT_SETUP, "the detsim plugin is missing: %s (is detsim built or "
        "installed completely?)", plugin);
  if (links && !is_file(runtime))
    die(DETSIM_CC_EXIT_SETUP, "the detsim runtime is missing: %s (is detsim built or "
        "installed completely?)", runtime);
  if (!clang_overridden && !is_file(clang))
    die(DETSIM_CC_EXIT_SETUP, "%s is missing (recorded when detsim was configured); set "
        "%s to a clang 19", clang, cxx ? DETSIM_CC_ENV_CLANGXX : DETSIM_CC_ENV_CLANG);
  {
    /* Pointing DETSIM_CLANG at detsim-cc itself would exec forever. */
    char *self_real = realpath("/proc/self/exe", NULL);
    char *clang_real = realpath(clang, NULL);
    if (self_real != NULL && clang_real != NULL && strcmp(self_real, clang_real) == 0)
      die(DETSIM_CC_EXIT_USAGE, "%s=%s is detsim-cc itself; it must name clang",
          cxx ? DETSIM_CC_ENV_CLANGXX : DETSIM_CC_ENV_CLANG, clang);
    free(self_real);
    free(clang_real);
  }

  /* 6. The lint, when asked, before clang sees the sources. */
  if (lint != DETSIM_CC_LINT_OFF) {
    int status = detsim_cc_lint(self_name, bin_dir, user, is_source, n_user, (enum detsim_cc_lint)lint);
    if (status != 0) return status;
  }

  /* 7. The new command line:
   *    clang <plugin, macros> [runtime] <user args> <-I, -L, rpath, -lpthread> */
  char **cmd = calloc((size_t)n_user + DETSIM_CC_ADDED_ARGS_MAX + 1, sizeof *cmd);
  if (cmd == NULL) die(DETSIM_CC_EXIT_SETUP, "out of memory");
  int n = 0;
  cmd[n++] = (char *)clang;
  cmd[n++] = "--start-no-unused-arguments";
  cmd[n++] = concat("-fplugin=", plugin);
  /* Also as a pass plugin: clang hands -fpass-plugin to every compile step,
   * so the steps that start from bitcode (-save-temps, -x ir inputs) are
   * instrumented too.  The pass marks a module and never runs twice. */
  cmd[n++] = concat("-fpass-plugin=", plugin);
  if (verify) cmd[n++] = "-fplugin-arg-detsim-verify";
  cmd[n++] = "-D__DETSIM__=1";
  if (verify) cmd[n++] = "-D__DETSIM_VERIFY__=1";
  /* The runtime receives the counters (__sanitizer_cov_8bit_counters_init)
   * and writes them at the run's end for simfuzz. */
  if (fuzz) {
    cmd[n++] = "-fsanitize-coverage=inline-8bit-counters";
    /* Without it clang links a sanitizer runtime whose weak definition of
     * that function, in the executable, would win over the runtime's.  A
     * sanitized build needs its sanitizer's runtime: the executable then
     * gets a definition of its own (fuzz_hook, below). */
    if (!s.sanitizers) cmd[n++] = "-fno-sanitize-link-runtime";
  }
  /* A source coverage build: counters relocatable at run time, so that
   * LLVM_PROFILE_FILE's %c (continuous mode, simrun --coverage) keeps the
   * profile of a run that ends without exit() (a crash, a check, a
   * world's end, a killed node) in its file as it runs. */
  for (int i = 0; i < n_user; i++)
    if (!strcmp(user[i], "-fprofile-instr-generate") || !strncmp(user[i], "-fprofile-instr-generate=", 25)) {
      cmd[n++] = "-mllvm";
      cmd[n++] = "-runtime-counter-relocation";
      break;
    }
  cmd[n++] = "--end-no-unused-arguments";
  if (links) {
    /* Before every user library, and kept even under --as-needed: the
     * runtime must precede libc (and any library) in the lookup order. */
    cmd[n++] = "-Wl,--push-state,--no-as-needed";
    cmd[n++] = "-ldetsim_rt";
    cmd[n++] = "-Wl,--pop-state";
  }
  for (int i = 0; i < n_user; i++) cmd[n++] = user[i];
  cmd[n++] = "--start-no-unused-arguments";
  cmd[n++] = concat("-I", include_dir);
  if (links) {
    /* After the user's -L: the linker searches every -L for every -l, and a
     * user's own directories keep precedence for their libraries. */
    if (msan) {
      /* The instrumented runtime, same name, found first at link and run
       * time; MSan's own runtime is static, in the executable (clang's
       * default), so there is no sanitizer library to find. */
      cmd[n++] = concat("-L", msan_lib_dir);
      cmd[n++] = concat("-Wl,-rpath,", msan_lib_dir);
    }
    cmd[n++] = concat("-L", lib_dir);
    cmd[n++] = concat("-Wl,-rpath,", lib_dir);
    cmd[n++] = "-lpthread";
  }
  if (shared_libsan) {
    /* The sanitizer's runtime as a library of its own, first in the
     * lookup order (clang puts it there), found at run time. */
    cmd[n++] = "-shared-libsan";
    cmd[n++] = "-Wl,-rpath," DETSIM_CLANG_RT_DIR;
  }
  if (links && fuzz && s.sanitizers) {
    /* The counters' registration in the executable, over the sanitizer's
     * weak one; whole, as a shared sanitizer runtime would satisfy it. */
    cmd[n++] = "-Wl,--export-dynamic-symbol=__sanitizer_cov_8bit_counters_init,--whole-archive";
    cmd[n++] = fuzz_hook;
    cmd[n++] = "-Wl,--no-whole-archive";
  }
  if (links && (s.sanitizers & SAN_THREAD)) {
    /* TSan's defaults (a race report ends the run), defined in the program. */
    /* Whole: TSan's shared runtime defines a weak default of its own, which
     * would otherwise satisfy the link; exported, so the runtime finds ours. */
    cmd[n++] = "-Wl,--export-dynamic-symbol=__tsan_default_options,--whole-archive";
    cmd[n++] = tsan_defaults;
    cmd[n++] = "-Wl,--no-whole-archive";
  }
  cmd[n++] = "--end-no-unused-arguments";
  if (n - n_user > DETSIM_CC_ADDED_ARGS_MAX) {
    fprintf(stderr, "%s: internal error: added %d arguments, max %d\n", self_name,
            n - n_user, DETSIM_CC_ADDED_ARGS_MAX);
    abort();
  }
  cmd[n] = NULL;

  /* 8. Exec. */
  if (debug) print_command(cmd);
  if (links && audit != DETSIM_CC_AUDIT_OFF)
    return detsim_cc_link_and_audit(self_name, cmd, bin_dir, s.output ? s.output : "a.out",
                                    (enum detsim_cc_audit)audit);
  if (strchr(clang, '/') != NULL) execv(clang, cmd);
  else execvp(clang, cmd);
  die(DETSIM_CC_EXIT_SETUP, "cannot run %s: %s (set %s to a clang 19)", clang,
      strerror(errno), cxx ? DETSIM_CC_ENV_CLANGXX : DETSIM_CC_ENV_CLANG);
}
