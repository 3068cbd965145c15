/* detsim-cc --audit (see detsim_cc_audit.h). */
#include "detsim_cc_audit.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int detsim_cc_audit_mode(const char *value) {
  if (value == NULL || strcmp(value, "1") == 0 || strcmp(value, "fail") == 0)
    return DETSIM_CC_AUDIT_FAIL;
  if (strcmp(value, "warn") == 0) return DETSIM_CC_AUDIT_WARN;
  if (strcmp(value, "0") == 0 || value[0] == '\0') return DETSIM_CC_AUDIT_OFF;
  return -1;
}

/* detsim_cc_run (detsim_cc_audit.h): runs argv, returns its exit status.
 * `to_stderr`: its stdout goes to our stderr, with the compiler's own
 * diagnostics (a build's stdout may be captured for something else). */
int detsim_cc_run(const char *self_name, char **argv, bool to_stderr) {
  pid_t pid;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (to_stderr) posix_spawn_file_actions_adddup2(&fa, 2, 1);
  int rc = strchr(argv[0], '/') != NULL ? posix_spawn(&pid, argv[0], &fa, NULL, argv, environ)
                                        : posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    fprintf(stderr, "%s: error: cannot run %s: %s\n", self_name, argv[0], strerror(rc));
    return -1;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

int detsim_cc_link_and_audit(const char *self_name, char **cmd, const char *bin_dir,
                             const char *output, enum detsim_cc_audit mode) {
  int status = detsim_cc_run(self_name, cmd, false);
  if (status != 0) return status < 0 ? 1 : status;
  char *simaudit = NULL;
  if (asprintf(&simaudit, "%s/simaudit", bin_dir) < 0) abort();
  const char *ignore = getenv("DETSIM_AUDIT_IGNORE");
  char *argv[] = {simaudit, "--ignore", (char *)ignore, (char *)output, NULL};
  if (ignore == NULL || ignore[0] == '\0') {
    argv[1] = (char *)output;
    argv[2] = NULL;
  }
  int audit = detsim_cc_run(self_name, argv, true);
  free(simaudit);
  if (audit == 0) return 0;
  if (audit == 1 && mode == DETSIM_CC_AUDIT_WARN) {
    fprintf(stderr, "%s: warning: simaudit names escapes from the simulation in %s (above)\n",
            self_name, output);
    return 0;
  }
  if (audit == 1) {
    fprintf(stderr, "%s: error: simaudit names escapes from the simulation in %s (above); "
            "the link fails (--audit=warn only warns; DETSIM_AUDIT_IGNORE=FILE suppresses)\n",
            self_name, output);
  } else {
    fprintf(stderr, "%s: error: simaudit could not audit %s (status %d)\n", self_name, output,
            audit);
  }
  unlink(output);
  return 1;
}
