/* --break-at N: one run with DETSIM_OPTIONS break_at=N.  The runtime stops
 * the process with SIGSTOP at event N and prints its own gdb line; we see
 * the stop (waitpid WUNTRACED), print the recipe, and wait for the process
 * to end: the user attaches gdb, or sends SIGCONT.  With --gdb we exec
 * `gdb -p <pid>` ourselves, so gdb is the stopped process's parent (which
 * Yama's ptrace_scope=1 allows when attaching from another shell is not).
 *
 * The run's stdout and stderr stay the terminal's (copied through as they
 * come) so the session is interactive; stderr is also captured for the
 * result line. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "simreplay.h"
#include "st_child.h"
#include "st_classes.h"

static void forward(struct st_child *c) {
  char buf[4096];
  ssize_t k;
  while ((k = read(c->err_fd, buf, sizeof buf)) > 0) {
    st_capture_add(&c->err, buf, (size_t)k);
    ssize_t w = write(2, buf, (size_t)k);
    (void)w;
  }
  if (k == 0) {
    close(c->err_fd);
    c->err_fd = -1;
  }
}

int sr_break_at(const struct sr_args *a, const struct sr_target *t) {
  sr_check_program(t->argv[0]);
  char *base = sr_options_for_replay(t->options);
  char *opt = st_xasprintf("%s%sbreak_at=%llu", base, base[0] ? ":" : "", (unsigned long long)a->break_at);
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)t->seed);
  struct st_spawn s = { .argv = t->argv, .seed = seed, .options = opt, .pass_stdout = true };
  struct st_child c;
  if (st_child_start(&c, &s) != 0)
    st_die(ST_EXIT_HARNESS, "harness error: cannot execute '%s': %s", t->argv[0], strerror(errno));
  bool stopped_once = false;
  int ws = 0;
  for (;;) {
    if (c.err_fd >= 0) {
      struct pollfd p = { .fd = c.err_fd, .events = POLLIN };
      if (poll(&p, 1, 50) > 0) forward(&c);
    } else {
      usleep(50 * 1000);
    }
    pid_t r = waitpid(c.pid, &ws, WNOHANG | WUNTRACED);
    if (r != c.pid) continue;
    if (WIFSTOPPED(ws)) {
      if (c.err_fd >= 0) forward(&c);
      stopped_once = true;
      printf("simreplay: seed %llu stopped after event %llu: process %d waits for a debugger\n", (unsigned long long)t->seed,
             (unsigned long long)a->break_at, (int)c.pid);
      if (a->gdb) {
        printf("simreplay: exec gdb -p %d\n", (int)c.pid);
        fflush(stdout);
        char pid[16];
        snprintf(pid, sizeof pid, "%d", (int)c.pid);
        execlp("gdb", "gdb", "-p", pid, (char *)NULL);
        fprintf(stderr, "simreplay: cannot exec gdb: %s (the process stays stopped: gdb -p %d, or kill -CONT %d)\n",
                strerror(errno), (int)c.pid, (int)c.pid);
        exit(ST_EXIT_HARNESS);
      }
      printf("simreplay:   gdb -p %d        (then 'continue'; if attaching is refused, see ptrace_scope or use --gdb)\n",
             (int)c.pid);
      printf("simreplay:   kill -CONT %d    (let it run on without a debugger)\n", (int)c.pid);
      printf("simreplay: waiting for process %d to end\n", (int)c.pid);
      fflush(stdout);
      continue;
    }
    break; /* exited or killed */
  }
  kill(-c.pid, SIGKILL); /* whatever it left in its group */
  for (int waited = 0; c.err_fd >= 0 && waited < 40; waited++) {
    struct pollfd p = { .fd = c.err_fd, .events = POLLIN };
    if (poll(&p, 1, 50) > 0) forward(&c);
  }
  char *text = st_capture_text(&c.err);
  struct st_outcome o;
  st_outcome_parse(text, &o);
  int status;
  if (WIFEXITED(ws) && WEXITSTATUS(ws) == ST_RUNTIME_EXIT_USAGE && o.usage && !o.result)
    st_die(ST_EXIT_USAGE, "the runtime of '%s' refused the options: %s\n(DETSIM_OPTIONS=%s)", t->argv[0], o.usage, opt);
  if (!o.first_line && !o.result)
    st_die(ST_EXIT_HARNESS, "harness error: '%s' printed no 'detsim: seed=' first line: it is not a simulation build",
           t->argv[0]);
  if (!o.result) {
    printf("simreplay: the run ended without a result line (%s %d)\n", WIFSIGNALED(ws) ? "signal" : "exit status",
           WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
  } else {
    if (!stopped_once)
      printf("simreplay: the run ended at event %llu, before event %llu: it never stopped\n",
             (unsigned long long)o.events, (unsigned long long)a->break_at);
    printf("simreplay: seed %llu: %s history=%016llx events=%llu\n", (unsigned long long)t->seed, st_class_name(o.cls),
           (unsigned long long)o.history, (unsigned long long)o.events);
  }
  /* No verdict to give: the run was for the debugger.  Its class is in
   * the line above. */
  status = ST_EXIT_OK;
  st_outcome_free(&o);
  free(text);
  st_child_free(&c);
  free(opt);
  free(base);
  return status;
}
