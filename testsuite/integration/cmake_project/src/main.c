#include <stdio.h>
#include <stdlib.h>

#include "worker.h"

int main(void) {
  long n = worker_run(4, 30);
  const char *seed = getenv("DETSIM_SEED");
  printf("counter=%ld seed=%s\n", n, seed ? seed : "-");
  return n == 120 ? 0 : 1;
}
