/* A data race that only some interleavings have.  The reader looks at the
 * flag under the lock and, when the writer has not published yet, peeks at
 * the data outside the lock.  When the writer runs first, its unlock orders
 * its write before the reader's read and there is no race; when the reader
 * looks first, nothing orders the peek and the writer's write: a race
 * ThreadSanitizer reports on that schedule. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int data;
static int published;

static void *writer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  data = 42;
  published = 1;
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  int ready = published;
  pthread_mutex_unlock(&lock);
  int seen = ready ? 42 : data; /* the bug: data read outside the lock */
  printf("seen %d\n", seen == 42 ? 42 : 0);
  return NULL;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&w, NULL, writer, NULL);
  pthread_join(r, NULL);
  pthread_join(w, NULL);
  return 0;
}
