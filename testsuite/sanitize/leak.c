/* Memory lost by a thread: LeakSanitizer reports it at exit. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *worker(void *arg) {
  (void)arg;
  char *copy = malloc(64);
  strcpy(copy, "forgotten");
  printf("%s\n", copy);
  copy = NULL; /* the bug: never freed */
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  return 0;
}
