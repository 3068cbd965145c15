/* A forked child is on its parent's machine: the same CPU count (with
 * cpus=draw, asked first by the child), machine-id and boot_id. */
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

static void read_line(const char *path, char *out, size_t n) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (f == NULL) return;
  if (fgets(out, (int)n, f) == NULL) out[0] = '\0';
  fclose(f);
}

int main(void) {
  int p[2];
  if (pipe(p) != 0) return 1;
  pid_t c = fork();
  if (c == 0) {
    char id[64], boot[64], line[200];
    int cpus = get_nprocs();
    read_line("/etc/machine-id", id, sizeof id);
    read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    int k = snprintf(line, sizeof line, "%d %s %s", cpus, id, boot);
    if (write(p[1], line, (size_t)k) != k) _exit(1);
    _exit(0);
  }
  close(p[1]);
  char got[200] = { 0 };
  size_t used = 0;
  ssize_t n;
  while ((n = read(p[0], got + used, sizeof got - 1 - used)) > 0) used += (size_t)n;
  waitpid(c, NULL, 0);
  char id[64], boot[64], mine[200];
  int cpus = get_nprocs();
  read_line("/etc/machine-id", id, sizeof id);
  read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
  snprintf(mine, sizeof mine, "%d %s %s", cpus, id, boot);
  int child_cpus = 0;
  sscanf(got, "%d", &child_cpus);
  printf("same_cpus=%d same_machine_id_and_boot_id=%d\n", child_cpus == cpus, strcmp(strchr(got, ' ') ? strchr(got, ' ') : "", strchr(mine, ' ')) == 0);
  return 0;
}
