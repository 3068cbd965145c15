/* A run that a real signal from outside stops (outside_signal.py).
 *
 *   outside_signal busy     virtual sleeps forever: events keep coming, so
 *                           the watchdog never ends it
 *   outside_signal blocked  a real read of stdin that never returns: no
 *                           event comes, and the signal comes before the
 *                           watchdog would end it
 *
 * Both first write a line that stays in stdout's buffer (stdout is a pipe),
 * which the end of the run must flush, and its own handlers for the
 * signals, which a signal from outside must not run (they are simulated).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void must_not_run(int sig) {
  (void)sig;
  static const char msg[] = "the program's own handler ran\n";
  write(1, msg, sizeof msg - 1);
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  signal(SIGTERM, must_not_run);
  signal(SIGHUP, must_not_run);
  printf("buffered line pid=%d\n", (int)getpid());
  if (!strcmp(argv[1], "blocked")) {
    char c;
    ssize_t r = read(0, &c, 1);
    printf("read returned %zd\n", r);
  } else {
    for (;;) usleep(1000);
  }
  return 0;
}
