#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>

long worker_run(int threads, int rounds);

int main(void) {
  long n = worker_run(3, 40);
#if defined(HAVE_DETSIM_BUILD) && !HAVE_DETSIM_BUILD
  printf("configure did not detect the detsim build\n");
  return 1;
#endif
  printf("counter=%ld\n", n);
  return n == 120 ? 0 : 1;
}
