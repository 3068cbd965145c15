/* A fork from a process with several threads: the child has only the
 * forking thread, makes and joins a thread of its own, and ends; the
 * parent's other thread, waiting on a condition variable all along, goes
 * on once the parent signals it.  vfork runs as fork for a child that
 * only _exits. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;

static void *waiter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  while (!go) pthread_cond_wait(&cv, &m);
  pthread_mutex_unlock(&m);
  return (void *)42;
}

static void *child_thread(void *arg) { return (void *)((long)arg * 2); }

int main(void) {
  pthread_t w;
  pthread_create(&w, NULL, waiter, NULL);
  pid_t c = fork();
  if (c == 0) {
    pthread_t t;
    void *r = NULL;
    if (pthread_create(&t, NULL, child_thread, (void *)21) != 0) _exit(2);
    pthread_join(t, &r);
    _exit((int)(long)r);
  }
  int st;
  waitpid(c, &st, 0);
  printf("child's own thread returned %d\n", WEXITSTATUS(st));
  pthread_mutex_lock(&m);
  go = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&m);
  void *r;
  pthread_join(w, &r);
  printf("parent's waiter returned %ld\n", (long)r);
  pid_t v = vfork();
  if (v == 0) _exit(17);
  waitpid(v, &st, 0);
  printf("vfork child status=%d\n", WEXITSTATUS(st));
  return 0;
}
