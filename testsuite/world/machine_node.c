/* A node that prints the machine it sees: its CPUs (cpus=draw), its
 * machine-id and boot_id, random bytes from /dev/urandom and a uuid.  Each
 * node of a world is a machine of its own. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

static void first_line(const char *path, char *out, int n) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (f == NULL) return;
  if (fgets(out, n, f) == NULL) out[0] = '\0';
  fclose(f);
  out[strcspn(out, "\n")] = '\0';
}

int main(void) {
  char mid[64], boot[64], uuid[64];
  first_line("/etc/machine-id", mid, sizeof mid);
  first_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
  first_line("/proc/sys/kernel/random/uuid", uuid, sizeof uuid);
  unsigned char b[16];
  int fd = open("/dev/urandom", O_RDONLY);
  if (fd < 0 || read(fd, b, sizeof b) != (ssize_t)sizeof b) return 1;
  close(fd);
  printf("cpus=%d machine_id=%s boot_id=%s uuid=%s urandom=", get_nprocs(), mid, boot, uuid);
  for (unsigned i = 0; i < sizeof b; i++) printf("%02x", b[i]);
  printf("\n");
  return 0;
}
