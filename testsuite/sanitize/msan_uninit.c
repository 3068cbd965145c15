/* An uninitialized read only some interleavings reach, for
 * MemorySanitizer: main hands a freshly allocated job to a worker and fills
 * in its port only afterwards, under the lock the worker reads it under.  A
 * worker that takes the lock first reads a field nobody wrote and branches
 * on it, which MemorySanitizer reports (natively the field may well read
 * 8080 or 0 and the bug stays unseen).  Schedules where main fills it first
 * pass. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct job {
  unsigned id;
  unsigned port; /* written by main after the worker has started: the bug */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned jobs_started;

static void *worker(void *arg) {
  struct job *job = arg;
  pthread_mutex_lock(&lock);
  unsigned port = job->port;
  pthread_mutex_unlock(&lock);
  if (port == 8080) printf("job %u port 8080\n", job->id);
  else printf("job %u port other\n", job->id);
  return NULL;
}

int main(void) {
  struct job *job = malloc(sizeof *job);
  if (job == NULL) return 1;
  job->id = 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, job);
  for (int i = 0; i < 3; i++) { /* bookkeeping: each lock a point the worker may run at */
    pthread_mutex_lock(&stats_lock);
    jobs_started++;
    pthread_mutex_unlock(&stats_lock);
  }
  pthread_mutex_lock(&lock);
  job->port = 8080;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  free(job);
  printf("jobs started %u\n", jobs_started / 3);
  return 0;
}
