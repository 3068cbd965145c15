/* A heap overflow by one element, in a worker thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *fill(void *arg) {
  int *cells = arg;
  for (int i = 0; i <= 8; i++) cells[i] = i; /* the bug: <= */
  return NULL;
}

int main(void) {
  int *cells = malloc(8 * sizeof *cells);
  pthread_t t;
  pthread_create(&t, NULL, fill, cells);
  pthread_join(t, NULL);
  printf("%d\n", cells[7]);
  free(cells);
  return 0;
}
