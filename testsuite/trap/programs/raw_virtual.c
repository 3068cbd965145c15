/* Inside the simulation, syscall instructions get the simulated kernel:
 * the virtual pid, the virtual clock (the run's first seconds, not the
 * machine's uptime). */
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>

#include "../raw_asm.h"

int main(void) {
  printf("pid=%ld\n", raw_syscall3(SYS_getpid, 0, 0, 0));
  struct timespec ts;
  raw_syscall3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0);
  struct timespec libc_ts;
  clock_gettime(CLOCK_MONOTONIC, &libc_ts);
  printf("same_second=%d\n", ts.tv_sec == libc_ts.tv_sec);
  return 0;
}
