/* simaudit: names, before a simulation build runs, every way its machine
 * code leaves the simulation (audit_scan.c lists them), with the function
 * and file:line of each, so CI can fail on them.
 *
 *   simaudit [--json] [--libs] [--ignore FILE]... PROG
 *
 * Exit status: 0 no escapes, 1 escapes found, 2 usage error or unreadable
 * input (missing file, not an x86-64 ELF program or library), 3 internal
 * error.  Suppressed findings do not count.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit.h"

#define EXIT_CLEAN 0
#define EXIT_ESCAPES 1
#define EXIT_USAGE 2

/* The libraries whose system calls the runtime's interposition covers:
 * glibc itself, the loader and the runtime. */
static bool excluded_library(const char *path) {
  static const char *const prefixes[] = {"libc.so", "libm.so", "libpthread.so", "libdl.so",
                                         "librt.so", "libmvec.so", "ld-linux", "libdetsim_rt.so"};
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0) return true;
  return false;
}

static void usage(FILE *f) {
  fputs("usage: simaudit [--json] [--libs] [--ignore FILE]... PROG\n"
        "\n"
        "Lists every escape from the simulation in the machine code of PROG (a\n"
        "detsim-cc build): system call instructions, rdtsc/rdtscp, rdrand/rdseed,\n"
        "cpuid, atomics the pass did not see (code built without the plugin, inline\n"
        "asm), and calls to libc functions the simulation does not cover; each with\n"
        "its function and file:line (from the debug info: build with -g).\n"
        "\n"
        "  --libs         also audit the shared libraries PROG loads (as the dynamic\n"
        "                 loader resolves them), except glibc's own (libc, libm,\n"
        "                 libpthread, libdl, librt, ld.so) and libdetsim_rt\n"
        "  --json         one JSON object on stdout instead of text\n"
        "  --ignore FILE  suppressions, one per line: KIND:PATTERN, where KIND is\n"
        "                 syscall, rdtsc, rdtscp, rdrand, rdseed, cpuid, atomic, libc,\n"
        "                 runtime or *, and PATTERN a glob matched against the\n"
        "                 function, the instruction or libc function, the source file\n"
        "                 and the object (full path or base name); # starts a comment\n"
        "\n"
        "Exit status: 0 no escapes, 1 escapes found, 2 usage error or unreadable\n"
        "input, 3 internal error.\n",
        f);
}

struct suppression {
  char *kind, *pattern;
  int used;
};

static struct suppression *sups;
static int n_sups;

static int read_ignore(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "simaudit: error: --ignore %s: cannot open it\n", path);
    return -1;
  }
  char *line = NULL;
  size_t cap = 0;
  int lineno = 0;
  while (getline(&line, &cap, f) >= 0) {
    lineno++;
    line[strcspn(line, "#\n")] = '\0';
    char *s = line + strspn(line, " \t");
    size_t len = strlen(s);
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
      s[--len] = '\0';
    if (len == 0) continue;
    char *colon = strchr(s, ':');
    if (colon == NULL || colon == s || colon[1] == '\0') {
      fprintf(stderr, "simaudit: error: %s:%d: '%s': expected KIND:PATTERN\n", path, lineno, s);
      free(line);
      fclose(f);
      return -1;
    }
    *colon = '\0';
    sups = realloc(sups, (size_t)(n_sups + 1) * sizeof *sups);
    if (sups == NULL) abort();
    sups[n_sups].kind = strdup(s);
    sups[n_sups].pattern = strdup(colon + 1);
    sups[n_sups].used = 0;
    if (sups[n_sups].kind == NULL || sups[n_sups].pattern == NULL) abort();
    n_sups++;
  }
  free(line);
  fclose(f);
  return 0;
}

static bool glob_matches(const char *pattern, const char *s) {
  if (s == NULL) return false;
  if (fnmatch(pattern, s, 0) == 0) return true;
  const char *base = strrchr(s, '/');
  return base != NULL && fnmatch(pattern, base + 1, 0) == 0;
}

static bool suppressed(const struct audit_finding *x) {
  for (int i = 0; i < n_sups; i++) {
    if (strcmp(sups[i].kind, "*") != 0 && strcmp(sups[i].kind, x->kind) != 0) continue;
    const char *p = sups[i].pattern;
    if (glob_matches(p, x->function) || glob_matches(p, x->detail) || glob_matches(p, x->file) ||
        glob_matches(p, x->object)) {
      sups[i].used++;
      return true;
    }
  }
  return false;
}

/* The shared libraries `prog` loads, as its own dynamic loader resolves
 * them (ldd's way: the loader lists them and runs nothing of the program). */
static int list_libraries(const char *prog, const char *interp, char ***out, char ***names) {
  int n = 0;
  *out = NULL;
  *names = NULL;
  int fds[2];
  if (interp == NULL || pipe(fds) != 0) return 0;
  pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    /* A name without a slash would be searched for as a library. */
    char *abs = realpath(prog, NULL);
    execl(interp, interp, "--list", abs != NULL ? abs : prog, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  FILE *f = fdopen(fds[0], "r");
  if (f == NULL) abort();
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) >= 0) {
    char *arrow = strstr(line, " => ");
    if (arrow == NULL) continue;
    char *path = arrow + 4;
    if (strncmp(path, "not found", 9) == 0) {
      *arrow = '\0';
      fprintf(stderr, "simaudit: warning: %s: library %s not found (not audited)\n", prog,
              line + strspn(line, " \t"));
      continue;
    }
    path[strcspn(path, " \n")] = '\0';
    if (path[0] != '/') continue;
    *arrow = '\0';
    *out = realloc(*out, (size_t)(n + 1) * sizeof **out);
    *names = realloc(*names, (size_t)(n + 1) * sizeof **names);
    if (*out == NULL || *names == NULL) abort();
    (*out)[n] = strdup(path);
    (*names)[n] = strdup(line + strspn(line, " \t"));
    if ((*out)[n] == NULL || (*names)[n] == NULL) abort();
    n++;
  }
  free(line);
  fclose(f);
  int status;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fprintf(stderr, "simaudit: warning: %s --list %s failed; its libraries may be missing "
            "from the audit\n", interp, prog);
  return n;
}

static void json_str(const char *s) {
  if (s == NULL) {
    fputs("null", stdout);
    return;
  }
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

static bool is_instruction(const struct audit_finding *x) {
  return strcmp(x->kind, "libc") != 0 && strcmp(x->kind, "runtime") != 0;
}

static void print_text(const struct audit_finding *x) {
  if (x->file != NULL) printf("%s:%u: ", x->file, x->line);
  else if (x->addr != 0) printf("%s+0x%llx: ", x->object, (unsigned long long)x->addr);
  else printf("%s: ", x->object);
  printf("%s: ", x->kind);
  if (strcmp(x->kind, "libc") == 0) printf("call to '%s'", x->detail);
  else if (strcmp(x->kind, "runtime") == 0) printf("no %s", x->detail);
  else printf("'%s'", x->detail);
  if (x->function != NULL) printf(" in %s", x->function);
  printf(": %s", x->why);
  if (x->file != NULL) printf(" [%s+0x%llx]", x->object, (unsigned long long)x->addr);
  putchar('\n');
}

static void print_json(const char *prog, char **objects, int n_objects,
                       const struct audit_findings *f, const bool *keep, int escapes,
                       int n_suppressed) {
  fputs("{\"program\": ", stdout);
  json_str(prog);
  fputs(", \"objects\": [", stdout);
  for (int i = 0; i < n_objects; i++) {
    if (i) fputs(", ", stdout);
    json_str(objects[i]);
  }
  printf("], \"escapes\": %d, \"suppressed\": %d, \"findings\": [", escapes, n_suppressed);
  bool first = true;
  for (int i = 0; i < f->n; i++) {
    if (!keep[i]) continue;
    const struct audit_finding *x = &f->v[i];
    fputs(first ? "\n  " : ",\n  ", stdout);
    first = false;
    fputs("{\"kind\": ", stdout);
    json_str(x->kind);
    fputs(", \"object\": ", stdout);
    json_str(x->object);
    if (x->addr != 0) printf(", \"address\": \"0x%llx\"", (unsigned long long)x->addr);
    else fputs(", \"address\": null", stdout);
    fputs(", \"function\": ", stdout);
    json_str(x->function);
    fputs(is_instruction(x) ? ", \"instruction\": " : ", \"call\": ", stdout);
    json_str(x->detail);
    fputs(", \"file\": ", stdout);
    json_str(x->file);
    if (x->file != NULL) printf(", \"line\": %u", x->line);
    else fputs(", \"line\": null", stdout);
    fputs(", \"why\": ", stdout);
    json_str(x->why);
    putchar('}');
  }
  fputs(first ? "]}\n" : "\n]}\n", stdout);
}

int main(int argc, char **argv) {
  bool json = false, libs = false;
  const char *prog = NULL;
  bool options_ended = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!options_ended && strcmp(a, "--") == 0) {
      options_ended = true;
    } else if (!options_ended && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
      usage(stdout);
      return EXIT_CLEAN;
    } else if (!options_ended && strcmp(a, "--json") == 0) {
      json = true;
    } else if (!options_ended && strcmp(a, "--libs") == 0) {
      libs = true;
    } else if (!options_ended && strcmp(a, "--ignore") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "simaudit: error: --ignore needs a file\n");
        return EXIT_USAGE;
      }
      if (read_ignore(argv[++i]) != 0) return EXIT_USAGE;
    } else if (!options_ended && a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "simaudit: error: unknown option '%s' (simaudit --help)\n", a);
      return EXIT_USAGE;
    } else if (prog == NULL) {
      prog = a;
    } else {
      fprintf(stderr, "simaudit: error: '%s': one program at a time (already: %s)\n", a, prog);
      return EXIT_USAGE;
    }
  }
  if (prog == NULL) {
    fprintf(stderr, "simaudit: error: no program to audit\n");
    usage(stderr);
    return EXIT_USAGE;
  }

  char err[512];
  struct audit_elf main_elf;
  if (audit_elf_open(prog, &main_elf, err, sizeof err) != 0) {
    fprintf(stderr, "simaudit: error: %s\n", err);
    return EXIT_USAGE;
  }
  struct audit_findings f = {0};
  char **objects = malloc(sizeof *objects);
  if (objects == NULL) abort();
  objects[0] = (char *)prog;
  int n_objects = 1;
  audit_scan(&main_elf, !main_elf.shared, &f);

  if (libs) {
    /* The libraries the program's code reaches: its DT_NEEDED and theirs,
     * not through the excluded ones (libunwind, loaded for the runtime, is
     * the runtime's business). */
    char **paths, **names;
    int n = list_libraries(prog, main_elf.interp, &paths, &names);
    bool *wanted = calloc((size_t)n + 1, sizeof *wanted);
    bool *done = calloc((size_t)n + 1, sizeof *done);
    struct audit_elf *elfs = calloc((size_t)n + 1, sizeof *elfs);
    if (wanted == NULL || done == NULL || elfs == NULL) abort();
    for (int k = 0; k < main_elf.n_needed; k++)
      for (int i = 0; i < n; i++)
        if (strcmp(names[i], main_elf.needed[k]) == 0) wanted[i] = true;
    for (bool more = true; more;) {
      more = false;
      for (int i = 0; i < n; i++) {
        if (!wanted[i] || done[i]) continue;
        done[i] = more = true;
        if (excluded_library(paths[i])) continue;
        if (audit_elf_open(paths[i], &elfs[i], err, sizeof err) != 0) {
          fprintf(stderr, "simaudit: warning: %s (not audited)\n", err);
          continue;
        }
        for (int k = 0; k < elfs[i].n_needed; k++)
          for (int j = 0; j < n; j++)
            if (strcmp(names[j], elfs[i].needed[k]) == 0) wanted[j] = true;
        objects = realloc(objects, (size_t)(n_objects + 1) * sizeof *objects);
        if (objects == NULL) abort();
        objects[n_objects++] = paths[i];
        audit_scan(&elfs[i], false, &f);
        /* The findings keep pointers to names inside the mapping; it stays. */
      }
    }
  }

  bool *keep = calloc((size_t)f.n + 1, sizeof *keep);
  if (keep == NULL) abort();
  int escapes = 0;
  for (int i = 0; i < f.n; i++) {
    keep[i] = !suppressed(&f.v[i]);
    escapes += keep[i];
  }
  int n_suppressed = f.n - escapes;
  if (json) {
    print_json(prog, objects, n_objects, &f, keep, escapes, n_suppressed);
  } else {
    for (int i = 0; i < f.n; i++)
      if (keep[i]) print_text(&f.v[i]);
    char extra[64] = "";
    if (n_suppressed > 0) snprintf(extra, sizeof extra, ", %d suppressed", n_suppressed);
    if (escapes == 0)
      printf("simaudit: %s: no escapes (%d object%s audited%s)\n", prog, n_objects,
             n_objects == 1 ? "" : "s", extra);
    else
      printf("simaudit: %s: %d escape%s (%d object%s audited%s)\n", prog, escapes,
             escapes == 1 ? "" : "s", n_objects, n_objects == 1 ? "" : "s", extra);
  }
  return escapes > 0 ? EXIT_ESCAPES : EXIT_CLEAN;
}
