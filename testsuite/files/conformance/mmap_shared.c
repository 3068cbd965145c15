/* A file mapped MAP_SHARED between threads: a writer thread stores into the
 * mapping, a reader thread (woken by a condition variable) sees the bytes;
 * msync(MS_SYNC) then read(2) of the file shows them; a second mapping of
 * the same file and a pwrite through the descriptor are coherent with the
 * first mapping; munmap, then the file keeps the content. */
#include <pthread.h>
#include <sys/mman.h>

#include "files_common.h"

#define MAP_BYTES 8192

static char *map;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int written;
static char seen[64];

static void *writer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  memcpy(map + 4096, "written by the writer thread", 29);
  for (int i = 0; i < 4096; i++) map[i] = (char)('A' + i % 26);
  written = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  while (!written) pthread_cond_wait(&cv, &mu);
  memcpy(seen, map + 4096, 29);
  pthread_mutex_unlock(&mu);
  return NULL;
}

int main(void) {
  files_setup();
  int fd = open(at("mapped"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  show("ftruncate to 8192", ftruncate(fd, MAP_BYTES));
  map = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  expect("mmap MAP_SHARED", map != MAP_FAILED);
  pthread_t r, w;
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&w, NULL, writer, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  printf("reader saw: %s\n", seen);
  show("msync MS_SYNC", msync(map, MAP_BYTES, MS_SYNC));
  char buf[64] = { 0 };
  show("pread at 4096", pread(fd, buf, 29, 4096));
  printf("file says: %s\n", buf);
  long sum = 0;
  for (int i = 0; i < 4096; i++) {
    char c;
    if (pread(fd, &c, 1, i) == 1) sum += c;
  }
  printf("first page byte sum through read: %ld\n", sum);

  char *second = mmap(NULL, MAP_BYTES, PROT_READ, MAP_SHARED, fd, 0);
  expect("a second mapping", second != MAP_FAILED);
  printf("second mapping at 4096: %.29s\n", second + 4096);
  show("pwrite PWRITE at 0", pwrite(fd, "PWRITE", 6, 0));
  printf("first mapping at 0: %.6s second: %.6s\n", map, second);
  map[10] = '!';
  printf("second mapping sees the store: %c\n", second[10]);
  show("msync MS_ASYNC", msync(map, 4096, MS_ASYNC));
  show("munmap first", munmap(map, MAP_BYTES));
  show("munmap second", munmap(second, MAP_BYTES));
  close(fd);
  char whole[32];
  printf("file after munmap: %.12s\n", slurp(at("mapped"), whole, sizeof whole));
  show("mmap of a closed descriptor", mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0);
  files_teardown();
  return 0;
}
