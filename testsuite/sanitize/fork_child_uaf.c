/* A heap-use-after-free in a forked child of a sanitized simulation build:
 * the child's AddressSanitizer report ends the whole run (crash
 * sanitizer=address), and the run replays, parent and child together.
 * Whether the child reads before or after its own thread frees is the
 * seed's: some seeds pass. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int *cell;
static int noise;

static void *freer(void *arg) {
  (void)arg;
  free(cell);
  return NULL;
}

int main(void) {
  cell = malloc(sizeof *cell);
  *cell = 42;
  pid_t c = fork();
  if (c < 0) return 1;
  if (c == 0) {
    pthread_t t;
    pthread_create(&t, NULL, freer, NULL);
    for (int i = 0; i < 20; i++) __atomic_fetch_add(&noise, 1, __ATOMIC_RELAXED); /* yield points */
    int v = *cell; /* after the free on the seeds that run the freer first */
    pthread_join(t, NULL);
    printf("child read %d\n", v);
    fflush(stdout);
    _exit(0);
  }
  int st;
  waitpid(c, &st, 0);
  printf("child status=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  free(cell);
  return 0;
}
