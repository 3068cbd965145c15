/* Lock/unlock pairs on one mutex of each kind (bench/README.md, "Mutex
 * kinds"): `sync_kinds KIND N` with KIND plain, robust, pshared,
 * robust_pshared or robust_inherit, one thread, N pairs; and `sync_kinds
 * named N`: N sem_open/sem_post/sem_wait/sem_close rounds on one name. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: sync_kinds plain|robust|pshared|robust_pshared|robust_inherit|named N\n");
    return 2;
  }
  const char *kind = argv[1];
  long n = atol(argv[2]);
  if (strcmp(kind, "named") == 0) {
    char name[64];
    snprintf(name, sizeof name, "/detsim-bench-%d", (int)getpid());
    sem_t *keep = sem_open(name, O_CREAT, 0600, 0);
    if (keep == SEM_FAILED) return 1;
    for (long i = 0; i < n; i++) {
      sem_t *s = sem_open(name, 0);
      sem_post(s);
      sem_wait(s);
      sem_close(s);
    }
    sem_close(keep);
    sem_unlink(name);
    return 0;
  }
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  if (strstr(kind, "robust")) pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  if (strstr(kind, "pshared")) pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  if (strstr(kind, "inherit")) pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
  pthread_mutex_t m;
  if (pthread_mutex_init(&m, &a) != 0) return 1;
  for (long i = 0; i < n; i++) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
  }
  return 0;
}
