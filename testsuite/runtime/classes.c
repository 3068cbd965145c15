/* One program per way a run ends, chosen by argv[1]: each must give its
 * class, its exit status and a useful message. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <detsim.h>

static int plain_flag; /* deliberately neither atomic nor volatile */
/* Not static: a never-written static would be folded to a constant, and the
 * loop below would lose its atomic loads. */
atomic_int stop_flag;

static void *noop(void *arg) {
  (void)arg;
  sleep(1000);
  return NULL;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "pass";
  if (!strcmp(what, "pass")) return 0;
  if (!strcmp(what, "exit")) exit(3);
  if (!strcmp(what, "_exit")) _exit(4);
  if (!strcmp(what, "segv")) {
    int *volatile p = NULL; /* opaque to the optimizer */
    return *p;
  }
  if (!strcmp(what, "abort")) abort();
  if (!strcmp(what, "check")) {
    for (int i = 0; i < 3; i++) DETSIM_CHECK(i < 3, "counter in range");
    DETSIM_CHECK(argc == 5, "argc is five");
    return 0;
  }
  if (!strcmp(what, "spin")) {
    /* A spin on plain memory never yields: only the watchdog can end it. */
    while (!plain_flag) {
    }
    return 0;
  }
  if (!strcmp(what, "livelock")) {
    while (!atomic_load(&stop_flag)) {
    }
    return 0;
  }
  if (!strcmp(what, "threads")) {
    for (int i = 0; i < 10; i++) {
      pthread_t t;
      pthread_create(&t, NULL, noop, NULL);
    }
    return 0;
  }
  if (!strcmp(what, "forever")) {
    for (;;) sleep(3600);
  }
  fprintf(stderr, "unknown case %s\n", what);
  return 2;
}
