/* file:line for simaudit's findings, from the object's DWARF, by running
 * llvm-symbolizer (from the LLVM 19 that detsim is built with) once per
 * object: the addresses go in through a temporary file (so neither side can
 * block on a full pipe), one answer per address comes back, in order.
 * --no-inlines: the line is the instruction's own (inside an inlined
 * helper too), while the function stays the one the symbol table names.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit.h"

extern char **environ;

static const char *symbolizer_path(void) {
  const char *env = getenv("SIMAUDIT_SYMBOLIZER");
  return env != NULL && env[0] != '\0' ? env : DETSIM_LLVM_SYMBOLIZER;
}

/* "path:line:col" -> path and line; false for "??:0:0". */
static bool parse_location(char *s, char **file, unsigned *line) {
  char *col = strrchr(s, ':');
  if (col == NULL) return false;
  *col = '\0';
  char *ln = strrchr(s, ':');
  if (ln == NULL) return false;
  *ln = '\0';
  unsigned long v = strtoul(ln + 1, NULL, 10);
  if (strcmp(s, "??") == 0 || v == 0) return false;
  *file = strdup(s);
  if (*file == NULL) abort();
  *line = (unsigned)v;
  return true;
}

bool audit_symbolize(const char *object, struct audit_finding *v, int n) {
  static bool warned;
  int want = 0;
  for (int i = 0; i < n; i++) want += v[i].addr != 0;
  if (want == 0) return true;
  FILE *in = tmpfile();
  int out[2];
  if (in == NULL || pipe(out) != 0) {
    fprintf(stderr, "simaudit: warning: cannot run the symbolizer: %s\n", strerror(errno));
    if (in != NULL) fclose(in);
    return false;
  }
  for (int i = 0; i < n; i++)
    if (v[i].addr != 0) fprintf(in, "0x%llx\n", (unsigned long long)v[i].addr);
  fflush(in);
  rewind(in);
  char *obj = NULL;
  if (asprintf(&obj, "--obj=%s", object) < 0) abort();
  char *argv[] = {(char *)symbolizer_path(), obj, "--functions=none", "--no-inlines", NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fileno(in), 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  fclose(in);
  free(obj);
  if (rc != 0) {
    if (!warned)
      fprintf(stderr, "simaudit: warning: cannot run %s: %s (findings without file:line)\n",
              argv[0], strerror(rc));
    warned = true;
    close(out[0]);
    return false;
  }
  FILE *answers = fdopen(out[0], "r");
  if (answers == NULL) abort();
  char *line = NULL;
  size_t cap = 0;
  int i = 0;
  bool expect_location = true; /* blocks: a location line, then a blank line */
  while (getline(&line, &cap, answers) >= 0) {
    line[strcspn(line, "\n")] = '\0';
    if (line[0] == '\0') {
      expect_location = true;
      continue;
    }
    if (!expect_location) continue;
    expect_location = false;
    while (i < n && v[i].addr == 0) i++;
    if (i >= n) break;
    parse_location(line, &v[i].file, &v[i].line);
    i++;
  }
  free(line);
  fclose(answers);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return true;
}
