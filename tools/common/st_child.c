/* Supervised child processes (see st_child.h). */
#include "st_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "st_limits.h"
#include "st_util.h"

extern char **environ;

/* The environment of a run: ours without DETSIM_SEED, DETSIM_OPTIONS and
 * the runtime's private re-exec marker, plus the run's values. */
static char **run_environ(const struct st_spawn *s) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = st_xmalloc(sizeof *env * (n + 4));
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (!strncmp(environ[i], "DETSIM_SEED=", 12) || !strncmp(environ[i], "DETSIM_OPTIONS=", 15) ||
        !strncmp(environ[i], "DETSIM__", 8) || (s->profile_file && !strncmp(environ[i], "LLVM_PROFILE_FILE=", 18)))
      continue;
    env[k++] = environ[i];
  }
  if (s->profile_file) env[k++] = st_xasprintf("LLVM_PROFILE_FILE=%s", s->profile_file);
  if (s->seed) env[k++] = st_xasprintf("DETSIM_SEED=%s", s->seed);
  if (s->options) env[k++] = st_xasprintf("DETSIM_OPTIONS=%s", s->options);
  env[k] = NULL;
  return env;
}

static void free_environ(char **env, const struct st_spawn *s) {
  size_t k = 0;
  while (env[k]) k++;
  /* The last one to three entries are ours. */
  if (s->options) free(env[--k]);
  if (s->seed) free(env[--k]);
  if (s->profile_file) free(env[--k]);
  free(env);
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static _Noreturn void child_exec(const struct st_spawn *s, char **env, int out_w, int err_w, int report_w) {
  setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGCHLD, SIG_DFL);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0 && devnull != 0) {
    dup2(devnull, 0);
    close(devnull);
  }
  if (!s->pass_stdout) dup2(out_w, 1);
  if (!s->pass_stderr) dup2(err_w, 2);
  execvpe(s->argv[0], s->argv, env);
  int e = errno;
  ssize_t r = write(report_w, &e, sizeof e);
  (void)r;
  _exit(127);
}

int st_child_start(struct st_child *c, const struct st_spawn *s) {
  memset(c, 0, sizeof *c);
  c->out_fd = c->err_fd = -1;
  int out[2] = { -1, -1 }, err[2] = { -1, -1 }, report[2];
  if (!s->pass_stdout && pipe2(out, O_CLOEXEC) != 0) return -1;
  if (!s->pass_stderr && pipe2(err, O_CLOEXEC) != 0) return -1;
  if (pipe2(report, O_CLOEXEC) != 0) return -1;
  char **env = run_environ(s);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    free_environ(env, s);
    close(report[0]), close(report[1]);
    if (out[0] >= 0) close(out[0]), close(out[1]);
    if (err[0] >= 0) close(err[0]), close(err[1]);
    errno = e;
    return -1;
  }
  if (pid == 0) child_exec(s, env, out[1], err[1], report[1]);
  setpgid(pid, pid); /* also in the parent: no window where a kill misses it */
  free_environ(env, s);
  if (out[1] >= 0) close(out[1]);
  if (err[1] >= 0) close(err[1]);
  close(report[1]);
  /* The report pipe closes at a successful exec (CLOEXEC) or carries the
   * exec's errno. */
  int exec_errno = 0;
  ssize_t k;
  do k = read(report[0], &exec_errno, sizeof exec_errno);
  while (k < 0 && errno == EINTR);
  close(report[0]);
  c->pid = pid;
  c->start = st_now();
  c->out_fd = out[0];
  c->err_fd = err[0];
  if (c->out_fd >= 0) fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
  if (c->err_fd >= 0) fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
  st_capture_init(&c->out, s->stdout_keep ? s->stdout_keep : ST_STDOUT_KEEP_BYTES, 0);
  st_capture_init(&c->err, ST_CAPTURE_HEAD_BYTES, ST_CAPTURE_TAIL_BYTES);
  if (k == (ssize_t)sizeof exec_errno) {
    while (waitpid(pid, &c->wait_status, 0) < 0 && errno == EINTR) {
    }
    c->reaped = true;
    st_child_free(c);
    errno = exec_errno;
    return -1;
  }
  return 0;
}

void st_child_pump(struct st_child *c, int fd) {
  char buf[65536];
  for (;;) {
    ssize_t k = read(fd, buf, sizeof buf);
    if (k > 0) {
      st_capture_add(fd == c->out_fd ? &c->out : &c->err, buf, (size_t)k);
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    /* EOF or an error: this stream is over. */
    close(fd);
    if (fd == c->out_fd) c->out_fd = -1;
    else c->err_fd = -1;
    return;
  }
}

bool st_child_try_reap(struct st_child *c) {
  if (c->reaped) return true;
  int status;
  struct rusage ru;
  pid_t r = wait4(c->pid, &status, WNOHANG, &ru);
  if (r != c->pid) return false;
  c->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
             (double)ru.ru_stime.tv_usec / 1e6;
  c->reaped = true;
  c->wait_status = status;
  c->reaped_at = st_now();
  /* Whatever the run left behind in its group goes with it. */
  kill(-c->pid, SIGKILL);
  return true;
}

bool st_child_over(struct st_child *c) {
  if (!c->reaped) return false;
  if (c->out_fd < 0 && c->err_fd < 0) return true;
  if (st_now() - c->reaped_at < ST_DRAIN_MS / 1000.0) return false;
  /* Someone outside the group holds the pipes: take what came, stop. */
  if (c->out_fd >= 0) st_child_pump(c, c->out_fd);
  if (c->err_fd >= 0) st_child_pump(c, c->err_fd);
  if (c->out_fd >= 0) close(c->out_fd), c->out_fd = -1;
  if (c->err_fd >= 0) close(c->err_fd), c->err_fd = -1;
  return true;
}

void st_child_kill(struct st_child *c) {
  if (c->pid > 0 && !c->reaped) {
    kill(-c->pid, SIGKILL);
    kill(c->pid, SIGKILL);
  }
}

void st_child_stop(struct st_child *c) {
  if (c->pid <= 0 || c->reaped) return;
  c->killed = true;
  if (c->term_at == 0) {
    c->term_at = st_now();
    kill(-c->pid, SIGTERM);
    kill(c->pid, SIGTERM);
  } else if (st_now() - c->term_at >= ST_TERM_GRACE_MS / 1000.0) {
    st_child_kill(c);
  }
}

double st_child_stop_left(const struct st_child *c) {
  if (c->term_at == 0) return ST_TERM_GRACE_MS / 1000.0;
  double left = c->term_at + ST_TERM_GRACE_MS / 1000.0 - st_now();
  return left > 0 ? left : 0;
}

void st_child_free(struct st_child *c) {
  if (c->out_fd >= 0) close(c->out_fd);
  if (c->err_fd >= 0) close(c->err_fd);
  c->out_fd = c->err_fd = -1;
  st_capture_free(&c->out);
  st_capture_free(&c->err);
}

int st_child_run(struct st_child *c, const struct st_spawn *s, double timeout_s) {
  if (st_child_start(c, s) != 0) return -1;
  while (!st_child_over(c)) {
    struct pollfd p[2];
    int n = 0;
    if (c->out_fd >= 0) p[n++] = (struct pollfd){ .fd = c->out_fd, .events = POLLIN };
    if (c->err_fd >= 0) p[n++] = (struct pollfd){ .fd = c->err_fd, .events = POLLIN };
    int r = poll(p, (nfds_t)n, n ? 50 : 10);
    for (int i = 0; r > 0 && i < n; i++)
      if (p[i].revents) st_child_pump(c, p[i].fd);
    if (!c->reaped && timeout_s > 0 && st_now() - c->start > timeout_s) st_child_stop(c);
    st_child_try_reap(c);
  }
  return 0;
}
