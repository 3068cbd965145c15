/* The output canary: real state leaks into what the program prints.  Each
 * run reads a counter from the file named by argv[1], prints it and stores
 * it plus one, so two runs of one seed take the same schedule but print
 * different numbers: a replay must see that (the write is in the history)
 * and name the printf.  The threads give the history something to hold
 * before the leak. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int shared;

static void *work(void *arg) {
  for (int i = 0; i < 5; i++) {
    pthread_mutex_lock(&m);
    shared += (int)(long)arg;
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

static long bump(const char *path) {
  long n = 0;
  FILE *f = fopen(path, "r");
  if (f != NULL) {
    if (fscanf(f, "%ld", &n) != 1) n = 0;
    fclose(f);
  }
  f = fopen(path, "w");
  if (f == NULL) return -1;
  fprintf(f, "%ld\n", n + 1);
  fclose(f);
  return n;
}

/* Not a tail call, so the write's site is this function's line. */
__attribute__((noinline)) static int print_count(long n) {
  printf("this run's number is %ld\n", n);
  return fflush(stdout) + 1;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  pthread_t a, b;
  pthread_create(&a, NULL, work, (void *)1L);
  pthread_create(&b, NULL, work, (void *)2L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("shared=%d\n", shared);
  return print_count(bump(argv[1])) == 1 ? 0 : 1;
}
