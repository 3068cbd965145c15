/* A clean simulation build that loads lib_rdtsc.so (see there). */
#include <stdint.h>
#include <stdio.h>

uint64_t lib_ticks(void);

int main(void) {
  printf("%d\n", lib_ticks() != 0);
  return 0;
}
