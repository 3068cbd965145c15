/* posix_spawn's POSIX_SPAWN_SETPGROUP and POSIX_SPAWN_SETSID, with this
 * program as its helper: a child in a group of its own (pgroup 0), a second
 * child joining the first one's group, a child in a session of its own,
 * and the errors posix_spawn returns (a negative group: EINVAL; no such
 * group, or a group of another session: EPERM).  Each helper reports its
 * ids as relations through a pipe (the pids are the kernel's natively and
 * the world's in the simulation). */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* helper WANT_PGID PARENT_SID: its group and session against what it was
 * told, then it waits for its stdin to close (a group that must outlive
 * its next spawn). */
static int helper(char **argv) {
  pid_t want = (pid_t)atol(argv[2]), parent_sid = (pid_t)atol(argv[3]);
  pid_t me = getpid(), pg = getpgrp(), sid = getsid(0);
  printf("own_group=%d group_is_wanted=%d own_session=%d parent_session=%d\n", pg == me, want == 0 || pg == want,
         sid == me, sid == parent_sid);
  fflush(stdout);
  char c;
  while (read(0, &c, 1) > 0) {
  }
  return 0;
}

/* The pipes: the helpers' reports, and their stdin. */
static int out[2], hold[2];

/* Spawns the helper with `flags` and `pgroup`; its report goes to the
 * report pipe, its stdin is the hold pipe (the ends it does not use are
 * closed in it).  posix_spawn's result. */
static int spawn(pid_t *c, short flags, pid_t pgroup, char *self) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, hold[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, hold[0]);
  posix_spawn_file_actions_addclose(&fa, hold[1]);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  posix_spawn_file_actions_addclose(&fa, out[1]);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  posix_spawnattr_setflags(&at, flags);
  posix_spawnattr_setpgroup(&at, pgroup);
  char want[32], sid[32];
  snprintf(want, sizeof want, "%ld", (long)(pgroup > 0 ? pgroup : 0));
  snprintf(sid, sizeof sid, "%ld", (long)getsid(0));
  char *args[] = { self, "helper", want, sid, NULL };
  int r = posix_spawn(c, "/proc/self/exe", &fa, &at, args, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  return r;
}

static void report(const char *what, int from) {
  char buf[256];
  size_t got = 0;
  while (got < sizeof buf - 1) {
    ssize_t n = read(from, buf + got, 1);
    if (n <= 0) break;
    if (buf[got++] == '\n') break;
  }
  buf[got] = '\0';
  printf("%s: %s", what, buf);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "helper") == 0) return helper(argv);
  signal(SIGPIPE, SIG_IGN);
  if (pipe(out) != 0 || pipe(hold) != 0) return 1;
  pid_t a, b, s;
  /* A leads a group of its own and stays until `hold` closes. */
  int r = spawn(&a, POSIX_SPAWN_SETPGROUP, 0, argv[0]);
  printf("setpgroup(0)=%d\n", r);
  report("child a", out[0]);
  /* B joins A's group. */
  r = spawn(&b, POSIX_SPAWN_SETPGROUP, a, argv[0]);
  printf("setpgroup(a)=%d\n", r);
  report("child b", out[0]);
  printf("getpgid(b)==a: %d\n", getpgid(b) == a);
  /* S leads a session (and a group) of its own. */
  r = spawn(&s, POSIX_SPAWN_SETSID, 0, argv[0]);
  printf("setsid=%d\n", r);
  report("child s", out[0]);
  printf("getsid(s)==s: %d\n", getsid(s) == s);
  /* The errors, and no child made for them. */
  pid_t x;
  printf("setpgroup(-1)=%s\n", strerror(spawn(&x, POSIX_SPAWN_SETPGROUP, -1, argv[0])));
  printf("setsid+setpgroup(a)=%s\n",
         strerror(spawn(&x, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETPGROUP, a, argv[0])));
  close(hold[1]);
  int st, ended = 0;
  while (wait(&st) > 0) ended += WIFEXITED(st) && WEXITSTATUS(st) == 0;
  printf("children ended=%d\n", ended);
  return 0;
}
