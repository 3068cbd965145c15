/* A stand-in for the runtime for work-count.c: prints the work counter the
 * pass adds to, at exit.  Compiled without the plugin. */
#include <stdint.h>
#include <stdio.h>

__thread uint64_t __detsim_work;

void __detsim_yield_access(void *addr, uint32_t kind) {
  (void)addr;
  (void)kind;
}

__attribute__((destructor)) static void report(void) {
  printf("work=%llu\n", (unsigned long long)__detsim_work);
}
