/* A data race in a forked child of a ThreadSanitizer simulation build,
 * that only some interleavings have (data_race.c's, in the child).  The
 * child's forker was its process's only thread, so TSan checks the child
 * as natively; the child's report ends the whole run (crash
 * sanitizer=thread) and the run replays, parent and child together. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

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
  printf("child seen %d\n", seen == 42 ? 42 : 0);
  return NULL;
}

int main(void) {
  pid_t c = fork();
  if (c < 0) {
    perror("fork");
    return 1;
  }
  if (c == 0) {
    pthread_t w, r;
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&w, NULL, writer, NULL);
    pthread_join(r, NULL);
    pthread_join(w, NULL);
    fflush(stdout);
    _exit(0);
  }
  int st;
  if (waitpid(c, &st, 0) != c) return 1;
  printf("child status=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  return 0;
}
