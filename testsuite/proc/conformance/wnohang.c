/* WNOHANG polling: 0 while the child runs (it sleeps 1 s), then its pid
 * and status; afterwards ECHILD.  wait3/wait4 report the same way. */
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  pid_t c = fork();
  if (c == 0) {
    sleep(1);
    _exit(5);
  }
  int st = 0;
  pid_t first = waitpid(c, &st, WNOHANG);
  printf("first=%d\n", (int)first);
  int polls = 0;
  pid_t w;
  while ((w = waitpid(-1, &st, WNOHANG)) == 0) {
    polls++;
    usleep(100000);
  }
  printf("polled_more_than_5=%d is_child=%d status=%d\n", polls > 5, w == c, WEXITSTATUS(st));
  errno = 0;
  printf("after=%d echild=%d\n", (int)waitpid(-1, &st, WNOHANG), errno == ECHILD);

  c = fork();
  if (c == 0) {
    usleep(200000);
    _exit(6);
  }
  struct rusage ru;
  printf("wait4_nohang=%d\n", (int)wait4(c, &st, WNOHANG, &ru));
  pid_t w4 = wait4(c, &st, 0, &ru);
  printf("wait4 is_child=%d status=%d\n", w4 == c, WEXITSTATUS(st));

  c = fork();
  if (c == 0) _exit(8);
  pid_t w3 = wait3(&st, 0, NULL);
  printf("wait3 is_child=%d status=%d\n", w3 == c, WEXITSTATUS(st));
  return 0;
}
