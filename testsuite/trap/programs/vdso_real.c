/* With rdtsc trapped, the vDSO's own rdtsc (libc-internal clock reads reach
 * it) still reads the real counter: the kernel's clock code called
 * directly gives the machine's real CLOCK_MONOTONIC, close to its uptime,
 * not a time computed from a virtual counter. */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

int main(void) {
  void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
  int (*vdso_clock_gettime)(clockid_t, struct timespec *) =
      h ? (int (*)(clockid_t, struct timespec *))dlsym(h, "__vdso_clock_gettime") : NULL;
  if (vdso_clock_gettime == NULL) {
    printf("no vdso\n");
    return 1;
  }
  struct timespec ts;
  vdso_clock_gettime(CLOCK_MONOTONIC, &ts);
  double up = 0;
  FILE *u = fopen("/proc/uptime", "r");
  if (u == NULL || fscanf(u, "%lf", &up) != 1) return 1;
  fclose(u);
  double d = (double)ts.tv_sec - up;
  printf("vdso_monotonic_is_real=%d\n", (d < 0 ? -d : d) < 5.0);
  return 0;
}
