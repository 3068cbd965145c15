/* What the simulated machine looks like: every way of asking how many CPUs
 * there are, which a thread may use and is on, the machine's identity. */
#define _GNU_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static void first_line(const char *path, char *out, size_t n) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (f == NULL) return;
  if (fgets(out, (int)n, f) == NULL) out[0] = '\0';
  fclose(f);
  out[strcspn(out, "\n")] = '\0';
}

static int cpuinfo_processors(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  int n = 0;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "processor", 9) == 0) n++;
  if (f) fclose(f);
  return n;
}

static int cpu_on;

static void *on_cpu(void *arg) {
  (void)arg;
  cpu_on = sched_getcpu();
  return NULL;
}

int main(void) {
  cpu_set_t s;
  CPU_ZERO(&s);
  sched_getaffinity(0, sizeof s, &s);
  cpu_set_t ps;
  CPU_ZERO(&ps);
  pthread_getaffinity_np(pthread_self(), sizeof ps, &ps);
  printf("nprocs=%d conf=%d onln=%ld sysconf_conf=%ld affinity=%d pthread_affinity=%d cpuinfo=%d\n", get_nprocs(),
         get_nprocs_conf(), sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_CONF), CPU_COUNT(&s), CPU_COUNT(&ps),
         cpuinfo_processors());
  char online[64], possible[64], present[64];
  first_line("/sys/devices/system/cpu/online", online, sizeof online);
  first_line("/sys/devices/system/cpu/possible", possible, sizeof possible);
  first_line("/sys/devices/system/cpu/present", present, sizeof present);
  printf("online=%s possible=%s present=%s\n", online, possible, present);

  /* Pinned to CPU 1 (when there is one), a thread and its children see it. */
  int cpus = get_nprocs();
  CPU_ZERO(&s);
  CPU_SET(cpus > 1 ? 1 : 0, &s);
  int r = sched_setaffinity(0, sizeof s, &s);
  CPU_ZERO(&s);
  sched_getaffinity(0, sizeof s, &s);
  pthread_t t;
  pthread_create(&t, NULL, on_cpu, NULL);
  pthread_join(t, NULL);
  printf("pinned set=%d count=%d cpu_is_pinned=%d child_cpu_is_pinned=%d\n", r, CPU_COUNT(&s),
         sched_getcpu() == (cpus > 1 ? 1 : 0), cpu_on == (cpus > 1 ? 1 : 0));
  CPU_ZERO(&s);
  CPU_SET(cpus, &s); /* no such CPU */
  printf("beyond_last=%d\n", sched_setaffinity(0, sizeof s, &s));
  printf("policy=%d\n", sched_getscheduler(0));

  char mid[64], boot[64];
  first_line("/etc/machine-id", mid, sizeof mid);
  int hex = strlen(mid) == 32;
  for (int i = 0; mid[i]; i++) hex = hex && isxdigit((unsigned char)mid[i]) && !isupper((unsigned char)mid[i]);
  first_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
  printf("machine_id_hex32=%d machine_id=%s boot_id=%s\n", hex, mid, boot);
  struct sysinfo si;
  sysinfo(&si);
  double loads[3] = { -1, -1, -1 };
  int nl = getloadavg(loads, 3);
  char mem[128];
  first_line("/proc/meminfo", mem, sizeof mem);
  printf("memory phys_gib=%ld sysinfo_gib=%lu procs=%d loads=%d,%.2f meminfo=%s\n",
         sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE) >> 30, (unsigned long)((uint64_t)si.totalram * si.mem_unit >> 30),
         si.procs, nl, loads[0], mem);
  char stat[512];
  first_line("/proc/self/stat", stat, sizeof stat);
  int pid;
  char comm[64];
  sscanf(stat, "%d %63s", &pid, comm);
  printf("stat_pid_is_getpid=%d comm=%s\n", pid == getpid(), comm);
  return 0;
}
