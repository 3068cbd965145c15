/* A planted ordering bug of depth DEPTH (1, 2, 3, ...): the opener thread
 * opens DEPTH windows, one after another, each one yield point wide and
 * after NOISE other atomic operations; the watcher thread checks between
 * NOISE operations of its own whether the next window is open.  The bug
 * (an abort) needs the watcher to look inside every window in order: DEPTH
 * switches into the watcher at one exact point of the opener, each with
 * the watcher at a check.  Each window seen is a new stage (new coverage
 * counts), which a coverage-guided search can build on and a random walk
 * cannot. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef DEPTH
#define DEPTH 1
#endif
#ifndef NOISE
#define NOISE 8
#endif

static atomic_int window;     /* the round whose window is open, 0: none */
static atomic_int done;
static atomic_int noise;
static int stage;             /* windows the watcher saw, in order */

static void *opener(void *arg) {
  (void)arg;
  for (int r = 1; r <= DEPTH; r++) {
    for (int i = 0; i < NOISE; i++) atomic_fetch_add(&noise, 1);
    atomic_store(&window, r);
    atomic_store(&window, 0);
  }
  atomic_store(&done, 1);
  return NULL;
}

static void *watcher(void *arg) {
  (void)arg;
  while (!atomic_load(&done)) {
    for (int i = 0; i < NOISE; i++) atomic_fetch_add(&noise, 1);
    if (atomic_load(&window) == stage + 1) {
      stage++;
      if (stage == DEPTH) {
        fprintf(stderr, "ordering: the watcher saw all %d windows\n", DEPTH);
        abort();
      }
    }
  }
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&b, NULL, watcher, NULL);
  pthread_create(&a, NULL, opener, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("stage=%d of %d\n", stage, DEPTH);
  return 0;
}
