/* Groups and sessions by number, and kill(-1), which a native run may not
 * try (it would signal every process of the user): the first process
 * (1000) leads its group and session, so its setsid and setpgid are EPERM;
 * a child (1001) that makes its own group keeps the session; a child that
 * starts a session (1002) leads both; kill(-1) reaches every other process
 * of the world and not the sender; with no other process left it is ESRCH;
 * tcgetpgrp of stdout is ENOTTY even on a terminal. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t usr1;
static void on_usr1(int sig) {
  (void)sig;
  usr1++;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  signal(SIGUSR1, on_usr1);
  int r1 = setsid(), e1 = errno;
  int r2 = setpgid(0, 0), e2 = errno;
  printf("first pid=%d pgrp=%d sid=%d setsid=%d/%s setpgid=%d/%s\n", (int)getpid(), (int)getpgrp(), (int)getsid(0),
         r1, e1 == EPERM ? "EPERM" : "?", r2, e2 == EPERM ? "EPERM" : "?");
  int ready[2];
  if (pipe(ready) != 0) return 1;
  pid_t a = fork();
  if (a == 0) {
    setpgid(0, 0);
    int s = setsid(), e = errno;
    printf("group child pid=%d pgrp=%d sid=%d setsid=%d/%s\n", (int)getpid(), (int)getpgrp(), (int)getsid(0), s,
           e == EPERM ? "EPERM" : "?");
    if (write(ready[1], "a", 1) != 1) _exit(2);
    while (!usr1) pause();
    _exit(10 + usr1);
  }
  pid_t b = fork();
  if (b == 0) {
    pid_t s = setsid();
    printf("session child pid=%d setsid=%d pgrp=%d sid=%d\n", (int)getpid(), (int)s, (int)getpgrp(),
           (int)getsid(0));
    if (write(ready[1], "b", 1) != 1) _exit(2);
    while (!usr1) pause();
    _exit(10 + usr1);
  }
  char c[2];
  if (read(ready[0], c, 1) != 1 || read(ready[0], c + 1, 1) != 1) return 2;
  printf("parent sees getpgid(a)=%d getsid(a)=%d getpgid(b)=%d getsid(b)=%d\n", (int)getpgid(a), (int)getsid(a),
         (int)getpgid(b), (int)getsid(b));
  int r = kill(-1, SIGUSR1);
  int st_a, st_b;
  waitpid(a, &st_a, 0);
  waitpid(b, &st_b, 0);
  printf("kill(-1)=%d a=%d b=%d sender's handler ran=%d\n", r, WEXITSTATUS(st_a), WEXITSTATUS(st_b), (int)usr1);
  r = kill(-1, SIGUSR1);
  printf("kill(-1) alone=%d/%s\n", r, r < 0 && errno == ESRCH ? "ESRCH" : "?");
  r = tcgetpgrp(1);
  printf("tcgetpgrp(stdout)=%d/%s\n", r, r < 0 && errno == ENOTTY ? "ENOTTY" : "?");
  return 0;
}
