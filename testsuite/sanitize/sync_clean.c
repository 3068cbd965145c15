/* Correctly synchronized threads, one of each simulated primitive: a
 * mutex-protected counter, a C11 release/acquire flag, a condition variable hand-off, a semaphore
 * hand-off, pthread_once, a barrier, a reader-writer lock, and data passed
 * at thread creation and join.  ThreadSanitizer must report nothing on any
 * schedule. */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>

#define WORKERS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_barrier_t barrier;
static sem_t handed;

static int counter;       /* under lock */
static int message;       /* under lock, announced by changed */
static int message_ready; /* under lock */
static int parcel;        /* written before sem_post, read after sem_wait */
static int config;        /* written once, by pthread_once */
static int table[WORKERS];/* under table_lock */
static int before_barrier[WORKERS]; /* each its own slot before, all read after */
static int result[WORKERS];         /* written by the worker, read after join */

static int flagged;          /* written before the release store */
static atomic_int flag;

static void init_config(void) { config = 7; }

static void *worker(void *arg) {
  int me = *(int *)arg;
  pthread_once(&once, init_config);
  for (int i = 0; i < 3; i++) {
    pthread_mutex_lock(&lock);
    counter += config;
    pthread_mutex_unlock(&lock);
  }
  pthread_rwlock_wrlock(&table_lock);
  table[me] = me + 1;
  pthread_rwlock_unlock(&table_lock);
  before_barrier[me] = me * 10;
  pthread_barrier_wait(&barrier);
  int sum = 0;
  for (int i = 0; i < WORKERS; i++) sum += before_barrier[i];
  pthread_rwlock_rdlock(&table_lock);
  for (int i = 0; i < WORKERS; i++) sum += table[i];
  pthread_rwlock_unlock(&table_lock);
  if (me == 1) {
    flagged = 5;
    atomic_store_explicit(&flag, 1, memory_order_release);
  }
  if (me == 2) {
    while (!atomic_load_explicit(&flag, memory_order_acquire)) sched_yield();
    sum += flagged;
  }
  if (me == 0) {
    pthread_mutex_lock(&lock);
    while (!message_ready) pthread_cond_wait(&changed, &lock);
    sum += message;
    pthread_mutex_unlock(&lock);
    sem_wait(&handed);
    sum += parcel;
  }
  result[me] = sum;
  return NULL;
}

int main(void) {
  pthread_barrier_init(&barrier, NULL, WORKERS);
  sem_init(&handed, 0, 0);
  pthread_t t[WORKERS];
  int ids[WORKERS];
  for (int i = 0; i < WORKERS; i++) {
    ids[i] = i;
    pthread_create(&t[i], NULL, worker, &ids[i]);
  }
  pthread_mutex_lock(&lock);
  message = 100;
  message_ready = 1;
  pthread_cond_signal(&changed);
  pthread_mutex_unlock(&lock);
  parcel = 1000;
  sem_post(&handed);
  for (int i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
  printf("counter %d results %d %d %d\n", counter, result[0], result[1], result[2]);
  return 0;
}
