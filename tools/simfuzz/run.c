/* One run of the target on a choices file (simfuzz.h): fork+exec in its
 * own process group, stdout to /dev/null, stderr to a file in the scratch
 * directory; waited for through a pidfd with the timeout (no signals:
 * libFuzzer owns the handlers), then the whole group is killed. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../runtime/fuzz_abi.h"
#include "simfuzz.h"
#include "st_outcome.h"
#include "st_util.h"

/* Bytes of a run's stderr read back: the result line and the lines before
 * it are at its end. */
#define SF_STDERR_TAIL_BYTES (64u * 1024)
/* Real seconds past the runtime's own watchdog before the run is killed. */
#define SF_KILL_GRACE_S 5

extern char **environ;

static char *workdir;
static char *cov_path, *err_path, *logs_path;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

/* A world's log directory (simworld --logs): its nodes' logs and
 * directories, made anew by every run. */
static void remove_logs(void) {
  if (logs_path) nftw(logs_path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void sf_workdir_remove(void) {
  if (!workdir) return;
  remove_logs();
  free(logs_path);
  logs_path = NULL;
  unlink(cov_path);
  unlink(err_path);
  char *in = st_xasprintf("%s/input.choices", workdir);
  unlink(in);
  free(in);
  rmdir(workdir);
  free(workdir);
  free(cov_path);
  free(err_path);
  workdir = cov_path = err_path = NULL;
}

const char *sf_workdir(void) {
  static bool registered;
  if (workdir) return workdir;
  workdir = st_xasprintf("%s/.work-%d", sf.out, (int)getpid());
  if (mkdir(workdir, 0700) != 0 && errno != EEXIST)
    st_die(ST_EXIT_HARNESS, "cannot make %s: %s", workdir, strerror(errno));
  cov_path = st_xasprintf("%s/coverage", workdir);
  err_path = st_xasprintf("%s/stderr", workdir);
  logs_path = st_xasprintf("%s/logs", workdir);
  if (!registered) atexit(sf_workdir_remove);
  registered = true;
  return workdir;
}

/* The run's DETSIM_OPTIONS: the user's, then simfuzz's (a later key wins). */
static char *run_options(const char *input_path) {
  const char *user = getenv("DETSIM_OPTIONS");
  return st_xasprintf("%s%schoices=%s:fuzz_out=%s:quiet=1:trace=none:watchdog_s=%u", user && user[0] ? user : "",
                      user && user[0] ? ":" : "", input_path, cov_path, sf.timeout_s);
}

static char *read_tail(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return st_xstrdup("");
  off_t size = lseek(fd, 0, SEEK_END);
  off_t from = size > (off_t)SF_STDERR_TAIL_BYTES ? size - (off_t)SF_STDERR_TAIL_BYTES : 0;
  size_t n = (size_t)(size - from);
  char *buf = st_xmalloc(n + 1);
  size_t got = 0;
  while (got < n) {
    ssize_t k = pread(fd, buf + got, n - got, from + (off_t)got);
    if (k <= 0) break;
    got += (size_t)k;
  }
  buf[got] = '\0';
  close(fd);
  return buf;
}

/* The last result line of stderr text (malloc'd), or NULL. */
static char *last_result_line(const char *text) {
  char *found = NULL;
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n");
    if (n > 8 && !strncmp(p, "detsim: ", 8)) {
      char *line = strndup(p, n);
      struct st_outcome t = {0};
      if (line && st_parse_result_line(line, &t)) {
        free(found);
        found = line;
      } else {
        free(line);
      }
      st_outcome_free(&t);
    }
    p += n;
    if (*p) p++;
  }
  return found;
}

/* Reads the coverage file into the regions; false when there is none. */
static bool read_coverage(uint8_t *counters, size_t n_counters, uint8_t *features, size_t n_features,
                          struct sf_run *r) {
  int fd = open(cov_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct detsim_fuzz_header h;
  bool ok = read(fd, &h, sizeof h) == (ssize_t)sizeof h && h.magic == DETSIM_FUZZ_MAGIC &&
            h.version == DETSIM_FUZZ_VERSION && h.sched_features == DETSIM_FUZZ_SCHED_FEATURES;
  if (!ok) {
    close(fd);
    st_die(ST_EXIT_HARNESS, "%s: not a coverage file of this detsim (version %u expected)", cov_path,
           DETSIM_FUZZ_VERSION);
  }
  if (h.counters_total > h.counters)
    st_die(ST_EXIT_HARNESS, "the program has %u coverage counters, more than %u (limit fuzz_counters)",
           h.counters_total, DETSIM_FUZZ_COUNTERS_MAX);
  r->counters = h.counters;
  r->choices_used = h.choices_used;
  /* A run of the same program writes as many counters as the probe did;
   * with a region not yet sized (the probe) nothing is copied. */
  if (counters && h.counters != n_counters)
    st_die(ST_EXIT_HARNESS, "the program wrote %u coverage counters, %zu before: was it rebuilt?", h.counters,
           n_counters);
  if (counters) ok = read(fd, counters, n_counters) == (ssize_t)n_counters;
  else ok = lseek(fd, (off_t)h.counters, SEEK_CUR) >= 0;
  if (ok && features) ok = read(fd, features, n_features) == (ssize_t)n_features;
  close(fd);
  if (!ok) {
    /* A run killed while writing: its coverage is lost, not wrong. */
    if (counters) memset(counters, 0, n_counters);
    if (features) memset(features, 0, n_features);
    return false;
  }
  return true;
}

void sf_run(const char *input_path, uint8_t *counters, size_t n_counters, uint8_t *features, size_t n_features,
            struct sf_run *r) {
  memset(r, 0, sizeof *r);
  r->cls = -1;
  sf_workdir();
  unlink(cov_path);
  char *options = run_options(input_path);
  char seed[24];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)sf.seed);
  int err_fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (err_fd < 0) st_die(ST_EXIT_HARNESS, "cannot write %s: %s", err_path, strerror(errno));
  pid_t pid = fork();
  if (pid < 0) st_die(ST_EXIT_HARNESS, "fork: %s", strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
      dup2(null_fd, 0);
      dup2(null_fd, 1);
    }
    dup2(err_fd, 2);
    setenv("DETSIM_SEED", seed, 1);
    setenv("DETSIM_OPTIONS", options, 1);
    if (sf.world) {
      /* simworld --logs: the world's logs in the scratch directory, removed
       * after the run (its history does not depend on where they are). */
      int n = 0;
      while (sf.target[n]) n++;
      char **argv = st_xcalloc((size_t)n + 3, sizeof *argv);
      argv[0] = sf.target[0];
      argv[1] = "--logs";
      argv[2] = logs_path;
      for (int i = 1; i <= n; i++) argv[i + 2] = sf.target[i];
      execv(argv[0], argv);
    } else {
      execvp(sf.target[0], sf.target);
    }
    dprintf(2, "simfuzz: cannot run %s: %s\n", sf.target[0], strerror(errno));
    _exit(127);
  }
  close(err_fd);
  setpgid(pid, pid); /* either side may win the race */
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  int status = 0;
  bool killed = false;
  if (pidfd >= 0) {
    struct pollfd p = { .fd = pidfd, .events = POLLIN };
    int r2;
    do r2 = poll(&p, 1, (int)(sf.timeout_s + SF_KILL_GRACE_S) * 1000);
    while (r2 < 0 && errno == EINTR);
    if (r2 == 0) {
      kill(-pid, SIGKILL);
      killed = true;
    }
    close(pidfd);
  }
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  kill(-pid, SIGKILL); /* what the run left behind */
  if (sf.world) remove_logs();
  free(options);
  r->stderr_text = read_tail(err_path);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && strstr(r->stderr_text, "simfuzz: cannot run"))
    st_die(ST_EXIT_HARNESS, "%s", r->stderr_text);
  struct st_outcome o = {0};
  st_outcome_parse(r->stderr_text, &o);
  if (o.result && !killed) {
    r->cls = o.cls;
    r->result_line = last_result_line(r->stderr_text);
  }
  st_outcome_free(&o);
  r->have_coverage = read_coverage(counters, n_counters, features, n_features, r);
  if (!r->have_coverage) {
    if (counters) memset(counters, 0, n_counters);
    if (features) memset(features, 0, n_features);
  }
}

void sf_run_free(struct sf_run *r) {
  free(r->result_line);
  free(r->stderr_text);
}
