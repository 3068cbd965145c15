/* A shared library built with plain clang that reads the time-stamp counter:
 * simaudit names it only with --libs (it is not the program's own code). */
#include <stdint.h>

uint64_t lib_ticks(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)); /* PLANT rdtsc */
  return (uint64_t)hi << 32 | lo;
}
