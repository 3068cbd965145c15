/* Shared mappings of a file on the simulated disk, natively and simulated
 * with the same output (run in a data directory: DETSIM_OPTIONS=data_dir):
 *
 *   mmap_conf
 *
 * MAP_SHARED between two threads (a store one makes is the other's load)
 * and two processes (a forked child's stores through the mapping it
 * inherited, and through one of its own, are the parent's loads); msync
 * with MS_SYNC, MS_ASYNC and MS_INVALIDATE and its errors; mremap growing
 * and moving a mapping over a grown file, then shrinking it; munmap of a
 * middle page (the rest stays mapped, msync of the hole is ENOMEM);
 * mprotect making a read-only mapping writable; the file's bytes at the
 * end.  What it prints never names an address, an inode or a time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG 4096

static char dir[64], file[128];
static char *map;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;

static void show(const char *label, long rc) {
  if (rc < 0) printf("%s = -1 %s\n", label, strerrorname_np(errno));
  else printf("%s = %ld\n", label, rc);
}

static uint32_t fnv(const unsigned char *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void show_file(const char *label, int fd) {
  struct stat st;
  fstat(fd, &st);
  unsigned char *buf = calloc(1, (size_t)st.st_size + 1);
  ssize_t n = pread(fd, buf, (size_t)st.st_size, 0);
  printf("%s: %zd bytes, fnv %08x\n", label, n, fnv(buf, n > 0 ? (size_t)n : 0));
  free(buf);
}

static void show_at(const char *label, int fd, off_t off) {
  char buf[40] = { 0 };
  ssize_t n = pread(fd, buf, 32, off);
  printf("%s: %zd bytes \"%s\"\n", label, n, buf);
}

/* Two threads take turns storing into page 1 and reading what the other
 * stored, through the one mapping. */
static void *ping(void *arg) {
  int me = (int)(intptr_t)arg;
  for (int round = 0; round < 6; round++) {
    pthread_mutex_lock(&mu);
    while (turn % 2 != me) pthread_cond_wait(&cv, &mu);
    if (turn > 0) printf("thread %d reads: %s\n", me, map + PG + 64 * (turn - 1));
    snprintf(map + PG + 64 * turn, 64, "store %d by thread %d", turn, me);
    turn++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

int main(void) {
  strcpy(dir, "mmap-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  snprintf(file, sizeof file, "%s/mapped", dir);
  int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
  show("ftruncate to 4 pages", ftruncate(fd, 4 * PG));
  map = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  printf("mmap 4 pages MAP_SHARED: %s\n", map == MAP_FAILED ? strerrorname_np(errno) : "ok");

  /* ---- two threads ---- */
  pthread_t a, b;
  pthread_create(&a, NULL, ping, (void *)0);
  pthread_create(&b, NULL, ping, (void *)1);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("last store: %s\n", map + PG + 64 * 11);
  show("msync MS_SYNC", msync(map, 4 * PG, MS_SYNC));
  show_at("read(2) of page 1 after msync", fd, PG + 64 * 11);
  show("msync MS_ASYNC", msync(map, PG, MS_ASYNC));
  show("msync MS_INVALIDATE", msync(map, PG, MS_INVALIDATE));
  show("msync MS_SYNC|MS_ASYNC", msync(map, PG, MS_SYNC | MS_ASYNC));
  show("msync of an unaligned address", msync(map + 1, PG, MS_SYNC));
  show("msync with a bad flag", msync(map, PG, 0x100));

  /* ---- two processes ---- */
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    strcpy(map + 2 * PG, "stored by the child (inherited mapping)");
    int cfd = open(file, O_RDWR);
    char *own = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 3 * PG);
    if (own == MAP_FAILED) _exit(3);
    strcpy(own, "stored by the child (its own mapping)");
    if (msync(own, PG, MS_SYNC) != 0 || munmap(own, PG) != 0) _exit(4);
    if (msync(map + 2 * PG, PG, MS_SYNC) != 0) _exit(5);
    close(cfd);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  printf("parent's mapping, page 2: %s\n", map + 2 * PG);
  printf("parent's mapping, page 3: %s\n", map + 3 * PG);
  show_at("read(2) of page 3", fd, 3 * PG);

  /* ---- mremap ---- */
  show("ftruncate to 8 pages", ftruncate(fd, 8 * PG));
  char *grown = mremap(map, 4 * PG, 8 * PG, MREMAP_MAYMOVE);
  printf("mremap 4 -> 8 pages: %s\n", grown == MAP_FAILED ? strerrorname_np(errno) : "ok");
  map = grown;
  printf("page 1 after mremap: %s\n", map + PG);
  strcpy(map + 6 * PG, "stored in a page mremap added");
  show("msync of the grown part", msync(map + 4 * PG, 4 * PG, MS_SYNC));
  show_at("read(2) of page 6", fd, 6 * PG);
  char *shrunk = mremap(map, 8 * PG, 3 * PG, 0);
  printf("mremap 8 -> 3 pages in place: %s\n", shrunk == map ? "same address" : shrunk == MAP_FAILED ? strerrorname_np(errno) : "moved");
  show("msync past the shrunk end", msync(map + 3 * PG, PG, MS_SYNC));

  /* ---- munmap of a middle page ---- */
  show("munmap page 1", munmap(map + PG, PG));
  strcpy(map + 2 * PG, "page 2 still mapped");
  show("msync of page 2", msync(map + 2 * PG, PG, MS_SYNC));
  show("msync over the hole", msync(map, 3 * PG, MS_SYNC));
  show_at("read(2) of page 2", fd, 2 * PG);
  show("munmap page 0", munmap(map, PG));
  show("munmap page 2", munmap(map + 2 * PG, PG));

  /* ---- mprotect ---- */
  char *ro = mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 4 * PG);
  printf("mmap read-only: %s\n", ro == MAP_FAILED ? strerrorname_np(errno) : "ok");
  show("mprotect the second page writable", mprotect(ro + PG, PG, PROT_READ | PROT_WRITE));
  strcpy(ro + PG, "stored after mprotect");
  show("msync MS_SYNC", msync(ro, 2 * PG, MS_SYNC));
  show_at("read(2) of page 5", fd, 5 * PG);
  show("munmap", munmap(ro, 2 * PG));
  show("mmap PROT_WRITE of a read-only descriptor",
       mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, open(file, O_RDONLY), 0) == MAP_FAILED ? -1 : 0);

  show_file("the file at the end", fd);
  close(fd);
  unlink(file);
  rmdir(dir);
  return 0;
}
