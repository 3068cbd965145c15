/* A simulation build using an uninstrumented library (plainlib.c) that
 * reads the machine: what it sees is the simulated machine, and its random
 * bytes are the seed's (the same in every process of a seed). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

uint64_t plainlib_seed(void);
uint64_t plainlib_seed_fd(void);
long plainlib_cpus(void);
int plainlib_affinity(void);
int plainlib_policy(void);

int main(void) {
  printf("seed=%016" PRIx64 " seed_fd=%016" PRIx64 "\n", plainlib_seed(), plainlib_seed_fd());
  printf("cpus=%ld affinity=%d policy=%d\n", plainlib_cpus(), plainlib_affinity(), plainlib_policy());
  return 0;
}
