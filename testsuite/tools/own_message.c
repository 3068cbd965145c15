/* A program that says why it fails, then fails later (tooltest.py's
 * first-failure-own): its message comes long before the crash's trace
 * tail, which a report showing only the last lines of stderr would hide. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *work(void *arg) {
  (void)arg;
  for (int i = 0; i < 20; i++) {
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  fprintf(stderr, "own_message: the server refused the connection\n");
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, NULL);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  if (counter == 40) abort(); /* always: the failure the message explains */
  return 0;
}
