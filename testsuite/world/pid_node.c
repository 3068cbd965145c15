/* A world test node that says its ids at once (unbuffered), then sleeps in
 * virtual time until the world ends it (world_pids.py). */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  printf("pid=%d ppid=%d tid=%d\n", (int)getpid(), (int)getppid(), (int)gettid());
  for (;;) usleep(1000);
}
