/* A stand-in for the runtime, for tests that run instrumented code: it
 * counts the calls the pass inserted and rewrote, and prints the counts at
 * exit.  Compiled without the plugin.  Every REWRITE function a test calls
 * needs a stub here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long yields[9];
static unsigned long sleeps;
/* The work counter the pass adds to (runtime/pass_abi.h DETSIM_WORK_COUNTER). */
__thread uint64_t __detsim_work;

void __detsim_yield_access(void *addr, uint32_t kind) {
  (void)addr;
  if (kind >= sizeof yields / sizeof yields[0])
    abort();
  yields[kind]++;
}

unsigned __detsim_sleep(unsigned seconds) {
  (void)seconds;
  sleeps++;
  return 0;
}

__attribute__((destructor)) static void report(void) {
  printf("atomic_load=%lu atomic_store=%lu rmw=%lu cmpxchg=%lu fence=%lu "
         "libatomic=%lu volatile_load=%lu volatile_store=%lu sleep=%lu\n",
         yields[1], yields[2], yields[3], yields[4], yields[5], yields[6],
         yields[7], yields[8], sleeps);
}
