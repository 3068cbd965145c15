/* Several children reaped with wait(), whatever order they end in; then
 * ECHILD.  waitid reports CLD_EXITED and CLD_KILLED with the child's pid;
 * WNOWAIT leaves it to be waited for again. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(void) {
  pid_t kids[4];
  for (int i = 0; i < 4; i++) {
    kids[i] = fork();
    if (kids[i] == 0) {
      usleep((useconds_t)(4 - i) * 1000);
      _exit(10 + i);
    }
  }
  int statuses[4], known = 0;
  for (int i = 0; i < 4; i++) {
    int st;
    pid_t w = wait(&st);
    for (int k = 0; k < 4; k++) known += w == kids[k];
    statuses[i] = WEXITSTATUS(st);
  }
  qsort(statuses, 4, sizeof statuses[0], cmp);
  printf("known=%d statuses=%d,%d,%d,%d\n", known, statuses[0], statuses[1], statuses[2], statuses[3]);
  errno = 0;
  printf("fifth=%d echild=%d\n", (int)wait(NULL), errno == ECHILD);

  pid_t c = fork();
  if (c == 0) _exit(42);
  siginfo_t si;
  int r = waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT);
  printf("waitid nowait=%d pid_ok=%d code_exited=%d status=%d\n", r, si.si_pid == c, si.si_code == CLD_EXITED,
         si.si_status);
  r = waitid(P_ALL, 0, &si, WEXITED);
  printf("waitid=%d pid_ok=%d status=%d\n", r, si.si_pid == c, si.si_status);

  c = fork();
  if (c == 0) {
    for (;;) pause();
  }
  kill(c, SIGKILL);
  r = waitid(P_PID, (id_t)c, &si, WEXITED);
  printf("waitid killed=%d code_killed=%d sig=%d\n", r, si.si_code == CLD_KILLED, si.si_status);
  errno = 0;
  r = waitid(P_ALL, 0, &si, WEXITED | WNOHANG);
  printf("waitid none=%d echild=%d\n", r, errno == ECHILD);
  return 0;
}
