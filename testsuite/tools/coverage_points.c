/* Coverage points for tooltest.py's coverage cases: two workers take a
 * lock three times each; which interleaving a seed takes decides which
 * points are reached.
 *
 *   "worker b first"        SOMETIMES: b took the lock first (some seeds)
 *   "workers interleaved"   SOMETIMES: neither ran all three first (some
 *                           seeds)
 *   "workers done"          REACHABLE: every run
 *   "never true"            SOMETIMES: evaluated every run, never true
 *   "never reached"         REACHABLE: behind a branch no run takes
 *   "b ran three in a row"  UNREACHABLE, only with the argument
 *                           `strict`: b took the lock three times in a
 *                           row before a (some seeds: correctness)
 *
 * A plain build (no plugin) compiles every point to nothing.
 */
#include <detsim.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char order[8];
static int taken;

static void *worker(void *arg) {
  char who = *(const char *)arg;
  for (int i = 0; i < 3; i++) {
    pthread_mutex_lock(&lock);
    order[taken++] = who;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int strict = argc > 1 && !strcmp(argv[1], "strict");
  static char a = 'a', b = 'b';
  pthread_t ta, tb;
  pthread_create(&ta, NULL, worker, &a);
  pthread_create(&tb, NULL, worker, &b);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  DETSIM_ALWAYS(taken == 6, "six acquisitions");
  DETSIM_SOMETIMES(order[0] == 'b', "worker b first");
  DETSIM_SOMETIMES(strcmp(order, "aaabbb") && strcmp(order, "bbbaaa"), "workers interleaved");
  DETSIM_REACHABLE("workers done");
  DETSIM_SOMETIMES(taken == 7, "never true");
  if (argc > 100) DETSIM_REACHABLE("never reached");
  if (strict && !strncmp(order, "bbb", 3)) DETSIM_UNREACHABLE("b ran three in a row");
  printf("%s\n", order);
  return 0;
}
