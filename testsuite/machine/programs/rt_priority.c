/* Real-time priorities as on one Linux CPU: three SCHED_FIFO workers of
 * priorities 10, 30 and 20, released together while main (priority 50)
 * runs, each logging its letter three times with yield points between:
 * the highest runs to its end first, whatever the seed.  With "other" the
 * workers stay SCHED_OTHER and the seed interleaves them.  Then a thread
 * raised above main runs at once, before pthread_setschedparam returns. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

static sem_t go;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static char order[16];
static int len;

static void *worker(void *arg) {
  char c = *(const char *)arg;
  sem_wait(&go);
  for (int i = 0; i < 3; i++) {
    pthread_mutex_lock(&m);
    order[len++] = c;
    pthread_mutex_unlock(&m);
    sched_yield();
  }
  return NULL;
}

static sem_t d_go;
static volatile int d_ran;

static void *raised(void *arg) {
  (void)arg;
  sem_wait(&d_go);
  d_ran = 1;
  return NULL;
}

int main(int argc, char **argv) {
  int rt = !(argc > 1 && strcmp(argv[1], "other") == 0);
  sem_init(&go, 0, 0);
  static const char names[3] = { 'A', 'B', 'C' };
  static const int prio[3] = { 10, 30, 20 };
  pthread_t t[3];
  for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void *)&names[i]);
  if (rt) {
    struct sched_param p = { .sched_priority = 50 };
    printf("main_fifo=%d\n", sched_setscheduler(0, SCHED_FIFO, &p));
    for (int i = 0; i < 3; i++) {
      p.sched_priority = prio[i];
      pthread_setschedparam(t[i], SCHED_FIFO, &p);
    }
  }
  for (int i = 0; i < 3; i++) sem_post(&go);
  printf("main_first=%d\n", len == 0); /* main outranks every worker */
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  printf("order=%s\n", order);
  if (rt) {
    struct sched_param p = { .sched_priority = 10 };
    sched_setscheduler(0, SCHED_FIFO, &p);
    sem_init(&d_go, 0, 0);
    pthread_t d;
    pthread_create(&d, NULL, raised, NULL); /* inherits priority 10 */
    sem_post(&d_go);
    p.sched_priority = 40;
    int before = d_ran;
    pthread_setschedparam(d, SCHED_FIFO, &p);
    printf("raised_runs_at_once=%d\n", d_ran == 1 && (before == 0 || before == 1));
    pthread_join(d, NULL);
  }
  return 0;
}
