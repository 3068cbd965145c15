/* main calls pthread_exit while other threads still run: the process goes
 * on, and when its last thread ends it exits with status 0 as from exit(0):
 * atexit handlers run and buffered stdout is flushed.  stdout is a pipe
 * under the test, so nothing below is written before that exit.  Each
 * worker waits for the one before it (the first for main's cleanup
 * handler), so the output's order is fixed however the threads run. */
#include <semaphore.h>
#include <stdlib.h>

#include "cancel_conf.h"

#define WORKERS 3

static sem_t turn[WORKERS + 1];
static int finished;

static void at_exit(void) {
  printf("atexit: finished=%d\n", finished);
}

static void *worker(void *arg) {
  long n = (long)(intptr_t)arg;
  sem_wait(&turn[n]);
  usleep(20000);
  finished++;
  printf("worker %ld done (%d finished)\n", n, finished);
  sem_post(&turn[n + 1]);
  return NULL;
}

static void main_cleanup(void *arg) {
  (void)arg;
  printf("main's cleanup handler\n");
  sem_post(&turn[0]);
}

int main(void) {
  atexit(at_exit);
  for (int i = 0; i <= WORKERS; i++) sem_init(&turn[i], 0, 0);
  pthread_t t[WORKERS];
  for (long i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
  printf("main exits its thread\n");
  pthread_cleanup_push(main_cleanup, NULL);
  pthread_exit(NULL);
  pthread_cleanup_pop(0);
  return 3; /* never: the status is 0 */
}
