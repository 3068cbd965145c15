/* A fork while another thread of the process is alive, under
 * ThreadSanitizer: a multi-threaded fork to TSan, natively too.  TSan then
 * ignores everything the child does, and (die_after_fork, its default)
 * ends a child that starts a thread: the run ends as `crash
 * sanitizer=thread` with TSan's words.  With TSAN_OPTIONS=die_after_fork=0
 * the child's thread starts and the run passes. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int hold[2];

static void *waiter(void *arg) {
  (void)arg;
  char c;
  if (read(hold[0], &c, 1) != 1) return NULL; /* alive until main writes */
  return NULL;
}

static void *nothing(void *arg) { return arg; }

int main(void) {
  if (pipe(hold) != 0) return 1;
  pthread_t w;
  pthread_create(&w, NULL, waiter, NULL);
  pid_t c = fork();
  if (c < 0) return 2;
  if (c == 0) {
    pthread_t t;
    pthread_create(&t, NULL, nothing, NULL);
    pthread_join(t, NULL);
    printf("child thread ran\n");
    fflush(stdout);
    _exit(0);
  }
  int st;
  if (waitpid(c, &st, 0) != c) return 3;
  if (write(hold[1], "x", 1) != 1) return 4;
  pthread_join(w, NULL);
  printf("child status=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  return 0;
}
