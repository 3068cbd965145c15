/* An uninitialized read that only some interleavings reach: main publishes
 * a freshly allocated config under the lock before it fills it in (the
 * bug), and fills it in under the lock afterwards.  A reader that takes the
 * lock between the two reads a field nobody wrote.  Natively that memory is
 * often zero and the read goes unseen; AddressSanitizer fills every new
 * allocation with 0xbe bytes, so the field reads 0xbebebebe and the
 * reader's check ends the run.  Other schedules read it filled, or not yet
 * published, and pass. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct config {
  unsigned port;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct config *config;

static void *reader(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  int seen = config != NULL;
  unsigned port = seen ? config->port : 0;
  pthread_mutex_unlock(&lock);
  if (seen && port != 8080) {
    fprintf(stderr, "uninitialized read of config->port: 0x%x\n", port);
    abort();
  }
  printf("port %u\n", seen ? port : 8080);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  pthread_mutex_lock(&lock);
  config = malloc(sizeof *config); /* the bug: published before it is filled */
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  config->port = 8080;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  free(config);
  return 0;
}
