/* Running the shard's seeds in parallel child processes.
 *
 * One loop: start runs while a worker is free, then poll every running
 * child's pipes and a self-pipe that SIGCHLD writes to, reap what ended,
 * kill what passed --timeout, and classify what is over.  Worker w runs its
 * seeds pinned to CPU allowed[w % nallowed] (DETSIM_OPTIONS cpu=), since a
 * simulation is one thread at a time and hand-offs across CPUs cost ~30x
 * more (DESIGN.md, "Switch cost").
 *
 * SIGINT and SIGTERM stop the sweep: running children are killed and the
 * caller reports the seeds that finished.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "simrun.h"
#include "st_child.h"
#include "st_classes.h"

struct worker {
  bool busy;
  struct st_child c;
  uint64_t seed, index;
  char *options;
};

static int sigchld_pipe[2] = { -1, -1 };
static volatile sig_atomic_t interrupted;
static struct worker *workers;
static int nworkers;

static void on_sigchld(int sig) {
  (void)sig;
  int e = errno;
  ssize_t r = write(sigchld_pipe[1], "c", 1);
  (void)r;
  errno = e;
}

static void on_interrupt(int sig) {
  (void)sig;
  interrupted = 1;
  int e = errno;
  ssize_t r = write(sigchld_pipe[1], "i", 1);
  (void)r;
  errno = e;
}

/* Kills every running child (before exiting on a harness error, or when
 * interrupted). */
static void kill_all(void) {
  for (int w = 0; w < nworkers; w++)
    if (workers[w].busy) st_child_kill(&workers[w].c);
}

static void install_signals(void) {
  if (pipe2(sigchld_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    st_die(ST_EXIT_HARNESS, "harness error: pipe: %s", strerror(errno));
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigchld;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, NULL);
  sa.sa_handler = on_interrupt;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* Two pipes per worker plus a few of our own: raise the soft limit. */
static void raise_fd_limit(int jobs) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
  rlim_t want = (rlim_t)jobs * 4 + 64;
  if (rl.rlim_cur >= want) return;
  rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);
}

/* The CPUs we may run on. */
static int allowed_cpus(int *cpus, int max) {
  cpu_set_t set;
  int n = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int i = 0; i < CPU_SETSIZE && n < max; i++)
      if (CPU_ISSET(i, &set)) cpus[n++] = i;
  if (n == 0) cpus[n++] = 0;
  return n;
}

static void start(struct worker *w, int slot, const struct simrun_plan *plan, const int *cpus, int ncpus) {
  struct st_buf opt = { 0 };
  st_buf_puts(&opt, plan->run_options);
  if (plan->pin) st_buf_printf(&opt, "%scpu=%d", opt.len ? ":" : "", cpus[slot % ncpus]);
  if (plan->a->trace_dir)
    st_buf_printf(&opt, "%strace=%s/detsim-%llu.trace", opt.len ? ":" : "", plan->a->trace_dir,
                  (unsigned long long)w->seed);
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)w->seed);
  /* --coverage: one profile per seed (per process of a world), kept up
   * to date as it runs (%c), so a crash or a killed node keeps its own. */
  char *profile = plan->a->coverage_dir
                      ? st_xasprintf("%s/seed-%llu-%%c%%p.profraw", plan->a->coverage_dir, (unsigned long long)w->seed)
                      : NULL;
  struct st_spawn s = { .argv = plan->a->argv, .seed = seed, .options = opt.s ? opt.s : "", .profile_file = profile };
  if (st_child_start(&w->c, &s) != 0) {
    int e = errno;
    kill_all();
    st_die(ST_EXIT_HARNESS, "harness error: cannot execute '%s': %s", plan->a->argv[0], strerror(e));
  }
  free(profile);
  w->options = opt.s;
  w->busy = true;
}

bool simrun_sweep(const struct simrun_plan *plan, struct simrun_sweep_info *info) {
  const struct simrun_args *a = plan->a;
  uint64_t total = plan->seeds->total;
  uint64_t todo = a->shard_index < total ? (total - a->shard_index + a->shard_count - 1) / a->shard_count : 0;
  nworkers = a->jobs;
  workers = st_xcalloc((size_t)nworkers, sizeof *workers);
  int *cpus = st_xmalloc(sizeof *cpus * CPU_SETSIZE);
  int ncpus = allowed_cpus(cpus, CPU_SETSIZE);
  install_signals();
  raise_fd_limit(nworkers);
  simrun_progress_start(todo, a->quiet);
  double t0 = st_now();
  uint64_t next = 0, done = 0;
  struct pollfd *pfd = st_xmalloc(sizeof *pfd * (size_t)(2 * nworkers + 1));
  int *pw = st_xmalloc(sizeof *pw * (size_t)(2 * nworkers + 1));
  while (done < todo && !interrupted) {
    for (int w = 0; w < nworkers && next < todo && !interrupted; w++) {
      if (workers[w].busy) continue;
      workers[w].index = a->shard_index + next * a->shard_count;
      workers[w].seed = st_seeds_at(plan->seeds, workers[w].index);
      next++;
      start(&workers[w], w, plan, cpus, ncpus);
    }
    int n = 0;
    pfd[n] = (struct pollfd){ .fd = sigchld_pipe[0], .events = POLLIN };
    pw[n++] = -1;
    double wait_s = 1.0;
    double now = st_now();
    for (int w = 0; w < nworkers; w++) {
      struct worker *k = &workers[w];
      if (!k->busy) continue;
      if (k->c.out_fd >= 0) pfd[n] = (struct pollfd){ .fd = k->c.out_fd, .events = POLLIN }, pw[n++] = w;
      if (k->c.err_fd >= 0) pfd[n] = (struct pollfd){ .fd = k->c.err_fd, .events = POLLIN }, pw[n++] = w;
      if (a->timeout_s > 0 && !k->c.reaped) {
        double left = k->c.killed ? st_child_stop_left(&k->c) : k->c.start + a->timeout_s - now;
        if (left < wait_s) wait_s = left < 0 ? 0 : left;
      }
      if (k->c.reaped && wait_s > 0.05) wait_s = 0.05; /* draining */
    }
    int r = poll(pfd, (nfds_t)n, (int)(wait_s * 1000) + 1);
    if (r < 0 && errno != EINTR) st_die(ST_EXIT_HARNESS, "harness error: poll: %s", strerror(errno));
    for (int i = 0; r > 0 && i < n; i++) {
      if (!pfd[i].revents) continue;
      if (pw[i] < 0) {
        char drain[64];
        while (read(sigchld_pipe[0], drain, sizeof drain) > 0) {
        }
      } else {
        st_child_pump(&workers[pw[i]].c, pfd[i].fd);
      }
    }
    now = st_now();
    for (int w = 0; w < nworkers; w++) {
      struct worker *k = &workers[w];
      if (!k->busy) continue;
      /* Reap first: a run that ended just before its deadline ended. */
      st_child_try_reap(&k->c);
      if (!k->c.reaped && a->timeout_s > 0 && now - k->c.start > a->timeout_s) st_child_stop(&k->c);
      if (!st_child_over(&k->c)) continue;
      simrun_classify(&k->c, k->seed, k->index, plan, info, kill_all);
      st_child_free(&k->c);
      free(k->options);
      k->busy = false;
      done++;
      simrun_progress_update(done, simrun_stats_failed());
    }
  }
  if (interrupted) {
    kill_all();
    for (int w = 0; w < nworkers; w++)
      if (workers[w].busy) {
        while (!st_child_try_reap(&workers[w].c)) usleep(1000);
        st_child_free(&workers[w].c);
        workers[w].busy = false;
      }
  }
  simrun_progress_end();
  info->wall_s = st_now() - t0;
  free(pfd);
  free(pw);
  free(cpus);
  return !interrupted;
}
