/* A library built without the plugin (as a distribution's would be) that
 * seeds itself from the machine: random bytes read with fopen, the CPU
 * count from sysconf, the affinity mask, the CPU time.  Its calls reach
 * the runtime through interposition. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

uint64_t plainlib_seed(void) {
  uint64_t seed = 0;
  FILE *f = fopen("/dev/urandom", "r");
  if (f == NULL || fread(&seed, sizeof seed, 1, f) != 1) return 0;
  fclose(f);
  return seed;
}

uint64_t plainlib_seed_fd(void) {
  uint64_t seed = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed) return 0;
  close(fd);
  return seed;
}

long plainlib_cpus(void) { return sysconf(_SC_NPROCESSORS_ONLN); }

int plainlib_affinity(void) {
  cpu_set_t s;
  CPU_ZERO(&s);
  if (sched_getaffinity(0, sizeof s, &s) != 0) return -1;
  return CPU_COUNT(&s);
}

int plainlib_policy(void) { return sched_getscheduler(0); }
