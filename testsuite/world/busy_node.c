/* A world test node that never ends by itself (world_outside_signal.py):
 * it writes a line that stays in stdout's buffer (its log is a file), then
 * sleeps in virtual time forever, so the world goes on until a signal from
 * outside ends it.  The line names its pid: the world's, at natural width. */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  printf("%s pid=%d buffered\n", argc > 1 ? argv[1] : "?", (int)getpid());
  for (;;) usleep(1000);
}
