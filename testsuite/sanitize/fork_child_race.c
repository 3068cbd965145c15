/* A data race in a forked child of a ThreadSanitizer simulation build,
 * that only some interleavings have (data_race.c's, in the child).  The
 * child's forker was its process's only thread, so TSan checks the child
 * as natively; the child's report ends the whole run (crash
 * sanitizer=thread) and the run replays, parent and child together.
 * Built with -DTHREADS_BEFORE_FORK, the parent first ran two threads that
 * ended (one joined, one detached): the forker is its process's only
 * thread again, and the child is still checked. */
#include <pthread.h>
#include <sched.h>
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

#ifdef THREADS_BEFORE_FORK
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;

static void *short_lived(void *arg) {
  (void)arg;
  pthread_mutex_lock(&done_lock);
  done++;
  pthread_cond_signal(&done_cond);
  pthread_mutex_unlock(&done_lock);
  return NULL;
}

static void threads_before_fork(void) {
  pthread_t joined, detached;
  pthread_create(&joined, NULL, short_lived, NULL);
  pthread_create(&detached, NULL, short_lived, NULL);
  pthread_detach(detached);
  pthread_join(joined, NULL);
  pthread_mutex_lock(&done_lock);
  while (done < 2) pthread_cond_wait(&done_cond, &done_lock);
  pthread_mutex_unlock(&done_lock);
  /* The detached thread may not have returned yet: let it. */
  for (int i = 0; i < 3; i++) sched_yield();
}
#endif

int main(void) {
#ifdef THREADS_BEFORE_FORK
  threads_before_fork();
#endif
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
