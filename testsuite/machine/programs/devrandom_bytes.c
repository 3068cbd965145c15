/* Random bytes from files, every way of opening and reading them, printed:
 * the same seed must print the same bytes in every process, another seed
 * other bytes. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void hex(const char *how, const unsigned char *b, size_t n) {
  printf("%s ", how);
  for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
  printf("\n");
}

static void *reader(void *arg) {
  unsigned char b[8];
  int fd = open("/dev/urandom", O_RDONLY);
  read(fd, b, sizeof b);
  close(fd);
  memcpy(arg, b, sizeof b);
  return NULL;
}

int main(void) {
  unsigned char b[16];
  int fd = open("/dev/urandom", O_RDONLY);
  read(fd, b, sizeof b);
  close(fd);
  hex("open+read", b, sizeof b);
  fd = openat(AT_FDCWD, "/dev/random", O_RDONLY);
  read(fd, b, sizeof b);
  close(fd);
  hex("openat+read", b, sizeof b);
  FILE *f = fopen("/dev/urandom", "r");
  fread(b, 1, sizeof b, f);
  hex("fopen+fread", b, sizeof b);
  char line[16];
  fgets(line, sizeof line, f);
  hex("fgets", (unsigned char *)line, strlen(line));
  char *l = NULL;
  size_t cap = 0;
  ssize_t n = getline(&l, &cap, f);
  hex("getline", (unsigned char *)l, (size_t)n);
  free(l);
  fclose(f);
  f = fopen64("/dev/urandom", "r");
  fread(b, 1, sizeof b, f);
  fclose(f);
  hex("fopen64+fread", b, sizeof b);
  char uuid[64];
  f = fopen("/proc/sys/kernel/random/uuid", "r");
  fgets(uuid, sizeof uuid, f);
  fclose(f);
  printf("uuid %s", uuid);
  /* Two threads racing to read: which gets which bytes is the schedule's. */
  unsigned char x[8], y[8];
  pthread_t t1, t2;
  pthread_create(&t1, NULL, reader, x);
  pthread_create(&t2, NULL, reader, y);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  hex("thread1", x, sizeof x);
  hex("thread2", y, sizeof y);
  return 0;
}
