/* A module a program would dlopen: instrumented, but it takes the runtime
 * from the program, so it must not link it itself. */
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int calls;

int plugin_mod_call(void) {
  pthread_mutex_lock(&lock);
  int n = ++calls;
  pthread_mutex_unlock(&lock);
  return n;
}
