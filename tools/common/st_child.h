/* One run of the program under test, as a supervised child process.
 *
 * Each run is fork+exec'd in its own process group (so a timeout or the end
 * of the run kills everything it started), with stdin from /dev/null, the
 * environment's DETSIM_SEED and DETSIM_OPTIONS replaced by the run's, and
 * stdout and stderr read through non-blocking pipes into bounded captures
 * (st_capture.h).  A run is over when its process is reaped and both pipes
 * are closed, or ST_DRAIN_MS after the reap at the latest.
 */
#ifndef ST_CHILD_H
#define ST_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

#include "st_capture.h"

struct st_spawn {
  char *const *argv;   /* program and arguments (argv[0] looked up on PATH) */
  const char *seed;    /* DETSIM_SEED, or NULL to leave it unset */
  const char *options; /* DETSIM_OPTIONS, or NULL to leave it unset */
  const char *profile_file; /* LLVM_PROFILE_FILE, or NULL to leave it as it is */
  bool pass_stdout;    /* stdout goes to ours, not to a capture (--break-at) */
  bool pass_stderr;    /* likewise for stderr */
  size_t stdout_keep;  /* bytes of stdout kept (0: ST_STDOUT_KEEP_BYTES) */
};

struct st_child {
  pid_t pid;
  int out_fd, err_fd; /* -1 once closed */
  struct st_capture out, err;
  double start, reaped_at;
  double cpu_s;  /* user + system CPU time of the run and the children it
                    waited for (a world's nodes), once reaped */
  bool reaped;
  int wait_status;
  bool killed; /* we stopped it (timeout) */
  double term_at; /* when st_child_stop sent SIGTERM (0: not yet) */
};

/* Starts the run.  0, or -1 with errno set when the program cannot be
 * executed (the exec's own errno: ENOENT, EACCES, ENOEXEC...). */
int st_child_start(struct st_child *c, const struct st_spawn *s);
/* Reads what is available on fd (one of c's); closes it at EOF. */
void st_child_pump(struct st_child *c, int fd);
/* Reaps the process if it ended (never blocks); true once reaped.  After the
 * reap the rest of its process group is killed. */
bool st_child_try_reap(struct st_child *c);
/* True when the run is over (reaped, pipes closed or drained long enough). */
bool st_child_over(struct st_child *c);
/* Kills the run's whole process group. */
void st_child_kill(struct st_child *c);
/* Stops the run at its timeout: SIGTERM to its process group, so that the
 * runtime writes its result line (reason=signal signal=SIGTERM); SIGKILL
 * once ST_TERM_GRACE_MS passed.  Called again and again until it is
 * reaped; sets c->killed. */
void st_child_stop(struct st_child *c);
/* Seconds until a stopped run's grace ends (for a poll's timeout). */
double st_child_stop_left(const struct st_child *c);
/* Closes the pipes and frees the captures. */
void st_child_free(struct st_child *c);

/* Runs to the end, blocking; timeout_s > 0 kills it after that many
 * seconds (c->killed is then set).  Returns like st_child_start. */
int st_child_run(struct st_child *c, const struct st_spawn *s, double timeout_s);

#endif
