/* posix_spawn with POSIX_SPAWN_SETPGROUP (a group of its own, 0) and with
 * POSIX_SPAWN_SETSID (a session of its own): the helper (this program)
 * reports whether its ids are its own pid or the caller's, and a signal to
 * the new group reaches it by killpg. */
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int spawn_with(const char *self, short flags, const char *mode) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, flags);
  posix_spawnattr_setpgroup(&attr, 0);
  char caller[32];
  snprintf(caller, sizeof caller, "%d", (int)getpid());
  char *argv[] = { (char *)self, (char *)mode, caller, NULL };
  pid_t pid;
  int e = posix_spawn(&pid, self, NULL, &attr, argv, environ);
  posix_spawnattr_destroy(&attr);
  if (e != 0) {
    printf("%s: posix_spawn failed: %s\n", mode, strerror(e));
    return -1;
  }
  if (strcmp(mode, "wait-signal") == 0) {
    /* Its group is its pid once it has run setpgid; wait until it has. */
    while (getpgid(pid) != pid) usleep(1000);
    printf("%s: killpg of the child's group: %d\n", mode, killpg(pid, SIGTERM));
  }
  int st;
  waitpid(pid, &st, 0);
  printf("%s: %s %d\n", mode, WIFEXITED(st) ? "exited" : "killed by", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 2) {
    pid_t caller = (pid_t)atoi(argv[2]);
    pid_t me = getpid();
    if (strcmp(argv[1], "wait-signal") == 0) {
      pause();
      return 9;
    }
    printf("  %s helper: own group=%d caller's group=%d own session=%d caller's session=%d\n", argv[1],
           getpgrp() == me, getpgrp() == getpgid(caller), getsid(0) == me, getsid(0) == getsid(caller));
    fflush(stdout);
    return 0;
  }
  char self[512];
  ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  if (k <= 0) return 1;
  self[k] = '\0';
  fflush(stdout);
  spawn_with(self, 0, "plain");
  spawn_with(self, POSIX_SPAWN_SETPGROUP, "setpgroup");
  spawn_with(self, POSIX_SPAWN_SETSID, "setsid");
  spawn_with(self, POSIX_SPAWN_SETPGROUP, "wait-signal");
  return 0;
}
