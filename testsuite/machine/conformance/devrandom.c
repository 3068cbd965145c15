/* /dev/urandom and /dev/random however opened and read: each read gives
 * the requested length, two reads differ, the kernel's random files have
 * their formats.  Natively and simulated the same lines print. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 32

static void report(const char *how, long got1, long got2, const unsigned char *a, const unsigned char *b) {
  printf("%s len=%d,%d differ=%d\n", how, got1 == N, got2 == N, memcmp(a, b, N) != 0);
}

static void by_fd(const char *how, int fd) {
  unsigned char a[N], b[N];
  if (fd < 0) { printf("%s open failed\n", how); return; }
  long r1 = read(fd, a, N), r2 = read(fd, b, N);
  report(how, r1, r2, a, b);
  close(fd);
}

static void by_stream(const char *how, FILE *f) {
  unsigned char a[N], b[N];
  if (f == NULL) { printf("%s fopen failed\n", how); return; }
  long r1 = (long)fread(a, 1, N, f), r2 = (long)fread(b, 1, N, f);
  report(how, r1, r2, a, b);
  fclose(f);
}

/* The first line of a file (empty when it can't be read). */
static void line_of(const char *path, char *out, int n) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (f == NULL) return;
  if (fgets(out, n, f) == NULL) out[0] = '\0';
  fclose(f);
}

int main(void) {
  by_fd("open_urandom", open("/dev/urandom", O_RDONLY));
  by_fd("open_random", open("/dev/random", O_RDONLY | O_CLOEXEC));
  by_fd("open_dotdot", open("/dev/../dev//urandom", O_RDONLY));
  by_fd("openat_urandom", openat(AT_FDCWD, "/dev/urandom", O_RDONLY));
  int dev = open("/dev", O_RDONLY | O_DIRECTORY);
  by_fd("openat_dirfd", openat(dev, "urandom", O_RDONLY));
  close(dev);
  /* Flags known only at run time: a fortified build calls __open_2 and
   * __openat_2 (or their 64-bit forms). */
  volatile int rdonly = O_RDONLY;
  by_fd("open_runtime_flags", open("/dev/urandom", rdonly));
  by_fd("openat_runtime_flags", openat(AT_FDCWD, "/dev/urandom", rdonly));
  by_stream("fopen_urandom", fopen("/dev/urandom", "r"));
  by_stream("fopen_random", fopen("/dev/random", "rb"));
  by_stream("fopen64_urandom", fopen64("/dev/urandom", "re"));

  FILE *f = fopen("/dev/urandom", "r");
  char line[64];
  printf("fgets=%d\n", fgets(line, sizeof line, f) != NULL);
  char *buf = NULL;
  size_t cap = 0;
  ssize_t n = getline(&buf, &cap, f);
  printf("getline ends_with_newline=%d\n", n > 0 && buf[n - 1] == '\n');
  free(buf);
  fclose(f);

  /* readv, poll, fcntl, and writing (allowed, as on Linux). */
  int fd = open("/dev/urandom", O_RDWR);
  unsigned char a[N], b[N];
  struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
  printf("poll=%d revents_in=%d revents_out=%d\n", poll(&p, 1, 0), (p.revents & POLLIN) != 0, (p.revents & POLLOUT) != 0);
  printf("write=%ld\n", (long)write(fd, "seed", 4));
  printf("getfl_rdwr=%d\n", (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR);
  struct stat st;
  printf("fstat_chr=%d\n", fstat(fd, &st) == 0 && S_ISCHR(st.st_mode));
  long r1 = read(fd, a, N), r2 = read(fd, b, N);
  report("open_rdwr", r1, r2, a, b);
  close(fd);
  fd = open("/dev/urandom", O_WRONLY);
  printf("read_wronly=%ld\n", (long)read(fd, a, N));
  close(fd);

  /* The kernel's random files. */
  char u1[64] = "", u2[64] = "", boot1[64] = "", boot2[64] = "";
  line_of("/proc/sys/kernel/random/uuid", u1, sizeof u1);
  line_of("/proc/sys/kernel/random/uuid", u2, sizeof u2);
  printf("uuid len=%zu version4=%d differ=%d\n", strlen(u1), u1[14] == '4', strcmp(u1, u2) != 0);
  fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY);
  long bn = read(fd, boot1, sizeof boot1 - 1);
  close(fd);
  line_of("/proc/sys/kernel/random/boot_id", boot2, sizeof boot2);
  printf("boot_id len=%ld same=%d\n", bn, strcmp(boot1, boot2) == 0);
  f = fopen("/proc/sys/kernel/random/entropy_avail", "r");
  int e = -1;
  printf("entropy_avail number=%d", fscanf(f, "%d", &e) == 1 && e > 0);
  fclose(f);
  fd = open("/proc/sys/kernel/random/uuid", O_WRONLY);
  printf(" uuid_write_open=%d%s\n", fd, fd < 0 && errno == EACCES ? " EACCES" : "");
  return 0;
}
