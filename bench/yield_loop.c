/* Bench 1, the cost of a yield point that does not switch.
 *
 *   yield_loop N
 *
 * One thread does N relaxed atomic loads of one cell and sums them.  In a
 * detsim build each load is a yield point (a call to __detsim_yield_access);
 * run with DETSIM_OPTIONS=preempt=0 none of them switches, so the difference
 * to the native build, divided by N, is the price of one yield point.  The
 * cell holds 1, so the program prints "sum=N"; bench/run.sh checks it.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static _Atomic uint64_t cell;

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: yield_loop N\n");
    return 2;
  }
  uint64_t n = strtoull(argv[1], NULL, 10);
  /* Stored at run time, so the compiler cannot know what the loads read. */
  atomic_store_explicit(&cell, (uint64_t)(argc - 1), memory_order_relaxed);
  uint64_t sum = 0;
  for (uint64_t i = 0; i < n; i++) sum += atomic_load_explicit(&cell, memory_order_relaxed);
  printf("sum=%llu\n", (unsigned long long)sum);
  return sum == n ? 0 : 1;
}
