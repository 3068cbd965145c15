/* rdtsc around a 30 s sleep counts 30 s of simulated cycles (3 GHz), and
 * the run takes no real 30 s; rdtscp names a simulated CPU. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "../raw_asm.h"

#define TSC_HZ 3000000000ull

int main(void) {
  uint64_t before = raw_rdtsc();
  sleep(30);
  uint64_t after = raw_rdtsc();
  uint32_t cpu = 99;
  uint64_t third = raw_rdtscp(&cpu);
  uint64_t d = after - before;
  printf("tsc_seconds=%llu\n", (unsigned long long)(d / TSC_HZ));
  printf("tsc_ms=%llu\n", (unsigned long long)(d / (TSC_HZ / 1000)));
  printf("rdtscp_forward=%d cpu_in_range=%d\n", third >= after, cpu < 4);
  printf("tsc_low=%llu\n", (unsigned long long)(before % 1000003));
  return 0;
}
