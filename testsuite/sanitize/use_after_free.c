/* A use-after-free that only some interleavings reach: the reader reads the
 * buffer under the lock, main frees it after taking the lock once itself.
 * When the reader runs first, the read is in time; when main's lock comes
 * first, the buffer is freed before the reader's read and AddressSanitizer
 * reports a heap-use-after-free. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int *buffer;

static void *reader(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  int value = buffer[0];
  pthread_mutex_unlock(&lock);
  printf("read %d\n", value);
  return NULL;
}

int main(void) {
  buffer = malloc(4 * sizeof *buffer);
  buffer[0] = 42;
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  pthread_mutex_lock(&lock);
  pthread_mutex_unlock(&lock);
  free(buffer); /* the bug: the reader may not have read yet */
  pthread_join(t, NULL);
  return 0;
}
