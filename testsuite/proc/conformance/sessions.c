/* Sessions and process groups as Linux has them: a child starts in its
 * parent's group and session; setsid makes it the leader of both (and a
 * second setsid, or a setpgid of a session leader, is EPERM); a parent's
 * setpgid(child, 0) makes the child a group leader, whose own children
 * join its group; killpg and kill(-pgid) reach every process of a group
 * (and kill(0) the sender's own, itself too); waitpid(-pgid) waits only for
 * that group; setpgid of a child in another session is EPERM, of a pid that
 * is no child ESRCH, with pgid < 0 EINVAL, into a group that does not exist
 * EPERM; kill of a group nobody is in is ESRCH; tcgetpgrp has no terminal
 * to answer for (ENOTTY for a pipe, EBADF for a closed descriptor).
 *
 * Natively the program's own group may hold the processes that run it, so
 * only its children signal their groups, and it prints relations, not
 * pids. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err(int r) { return r == 0 ? "ok" : errno == EPERM ? "EPERM" : errno == ESRCH ? "ESRCH" : errno == EINVAL ? "EINVAL" : errno == ENOTTY ? "ENOTTY" : errno == EBADF ? "EBADF" : strerror(errno); }

static volatile sig_atomic_t usr1;
static void on_usr1(int sig) {
  (void)sig;
  usr1++;
}

/* A line from a child, through a pipe. */
static void relay(int fd) {
  char buf[512];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    if (write(1, buf, (size_t)n) != n) return;
}

static void say(int fd, const char *text) {
  if (write(fd, text, strlen(text)) < 0) _exit(9);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  signal(SIGUSR1, on_usr1);
  pid_t my_pgrp = getpgrp(), my_sid = getsid(0);

  /* A child that starts a session. */
  int p[2], go[2];
  if (pipe(p) != 0 || pipe(go) != 0) return 1;
  pid_t a = fork();
  if (a == 0) {
    close(p[0]);
    close(go[1]);
    char line[256];
    snprintf(line, sizeof line, "child: in parent's group=%d session=%d\n", getpgrp() == my_pgrp,
             getsid(0) == my_sid);
    say(p[1], line);
    pid_t s = setsid();
    snprintf(line, sizeof line, "setsid: returns its pid=%d pgrp=%d sid=%d\n", s == getpid(), getpgrp() == getpid(),
             getsid(0) == getpid());
    say(p[1], line);
    int r = setsid();
    snprintf(line, sizeof line, "setsid again: %s\n", err(r));
    say(p[1], line);
    r = setpgid(0, 0);
    snprintf(line, sizeof line, "setpgid of a session leader: %s\n", err(r));
    say(p[1], line);
    r = tcgetpgrp(p[1]);
    snprintf(line, sizeof line, "tcgetpgrp(pipe): %s\n", err(r < 0 ? -1 : 0));
    say(p[1], line);
    r = tcgetpgrp(77);
    snprintf(line, sizeof line, "tcgetpgrp(closed): %s\n", err(r < 0 ? -1 : 0));
    say(p[1], line);
    close(p[1]);
    char b;
    if (read(go[0], &b, 1) != 1) _exit(3); /* the parent has tried its setpgid */
    _exit(0);
  }
  close(p[1]);
  close(go[0]);
  relay(p[0]);
  close(p[0]);
  printf("parent: getsid(child)==child=%d getpgid(child)==child=%d\n", getsid(a) == a, getpgid(a) == a);
  int r = setpgid(a, a);
  printf("setpgid of a child in another session: %s\n", err(r));
  if (write(go[1], "x", 1) != 1) return 2;
  close(go[1]);
  int st;
  waitpid(a, &st, 0);
  printf("session child status=%d\n", WEXITSTATUS(st));
  r = setpgid(a, 0);
  printf("setpgid of a reaped child: %s\n", err(r));
  printf("setpgid(..., -1): %s\n", err(setpgid(0, -1)));

  /* A child made a group leader by its parent (and by itself: both call
   * setpgid, as shells do, so whichever runs first wins), with a
   * grandchild in its group; the group is signalled from inside and from
   * the parent. */
  int q[2];
  if (pipe(q) != 0) return 3;
  pid_t b = fork();
  if (b == 0) {
    setpgid(0, 0);
    close(q[0]);
    char line[256];
    pid_t g = fork();
    if (g == 0) {
      close(q[1]);
      for (;;) pause(); /* until its parent's SIGUSR2 */
    }
    snprintf(line, sizeof line, "grandchild in its parent's group=%d\n", getpgid(g) == getpid());
    say(q[1], line);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, &old);
    r = kill(0, SIGUSR1);
    while (!usr1) sigsuspend(&old);
    snprintf(line, sizeof line, "kill(0) from the leader: %s, reaches itself=%d\n", err(r), (int)usr1);
    say(q[1], line);
    r = setpgid(g, a); /* the reaped session leader's group is gone */
    snprintf(line, sizeof line, "setpgid of a child into a group that does not exist: %s\n", err(r));
    say(q[1], line);
    kill(g, SIGUSR2);
    pid_t w = waitpid(-getpid(), &st, 0);
    snprintf(line, sizeof line, "waitpid(-its group)==grandchild=%d signaled=%d\n", w == g,
             WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR2);
    say(q[1], line);
    close(q[1]);
    for (;;) pause(); /* until the parent's killpg */
  }
  r = setpgid(b, 0);
  printf("parent's setpgid(child, 0): %s\n", r == 0 || errno == EACCES ? "ok" : err(r));
  close(q[1]);
  relay(q[0]);
  close(q[0]);
  printf("child leads a group=%d parent's group unchanged=%d\n", getpgid(b) == b, getpgrp() == my_pgrp);
  pid_t w = waitpid(-b, &st, WNOHANG);
  printf("waitpid(-group, WNOHANG) while it runs=%d\n", (int)w);
  w = waitpid(-my_pgrp, &st, WNOHANG);
  printf("waitpid(-own group) with no child in it: %s\n", w < 0 && errno == ECHILD ? "ECHILD" : "other");
  r = killpg(b, SIGTERM);
  printf("killpg(child's group): %s\n", err(r));
  w = waitpid(-b, &st, 0);
  printf("waitpid(-group)==child=%d signaled=%d\n", w == b, WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
  pid_t c = fork();
  if (c == 0) _exit(0);
  waitpid(c, &st, 0);
  r = kill(-c, 0);
  printf("kill of a group nobody is in: %s\n", err(r));
  r = killpg(c, SIGTERM);
  printf("killpg of a group nobody is in: %s\n", err(r));
  printf("setpgid of no child: %s\n", err(setpgid(c, 0)));
  return 0;
}
