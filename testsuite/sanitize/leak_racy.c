/* A check-then-act race that leaks: each thread makes an entry and installs
 * it if it saw the slot empty.  When both look before either installs, the
 * second overwrites the first's entry, which nobody frees: LeakSanitizer
 * reports it at exit on those schedules only. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static char *slot;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *install(void *arg) {
  char *mine = malloc(32);
  snprintf(mine, 32, "entry %ld", (long)(intptr_t)arg);
  pthread_mutex_lock(&lock);
  bool empty = slot == NULL;
  pthread_mutex_unlock(&lock);
  struct timespec now; /* a yield point in the window: the other thread may look too */
  clock_gettime(CLOCK_MONOTONIC, &now);
  pthread_mutex_lock(&lock);
  if (empty) slot = mine; /* the bug: the slot may have been filled since */
  else free(mine);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, install, (void *)(intptr_t)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("slot holds %s\n", slot ? "an entry" : "nothing");
  free(slot);
  return 0;
}
