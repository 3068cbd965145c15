/* A shared library compiled with plain clang (no plugin): its calls to
 * pthread_mutex_lock, pthread_cond_timedwait, clock_gettime and sleep go to
 * libc's names, which the runtime exports, so they land in the simulation. */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t plainlib_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_signalled = PTHREAD_COND_INITIALIZER;

/* Locks the library's mutex (blocking while the caller's other thread holds
 * it), waits an hour of virtual time on a condvar nobody signals, and sleeps
 * a day.  Returns the timedwait's result and the virtual seconds it saw. */
int plainlib_work(long *elapsed_s) {
  struct timespec start, deadline, end;
  clock_gettime(CLOCK_REALTIME, &start);
  pthread_mutex_lock(&plainlib_mutex);
  deadline = start;
  deadline.tv_sec += 3600;
  int rc = pthread_cond_timedwait(&never_signalled, &plainlib_mutex, &deadline);
  pthread_mutex_unlock(&plainlib_mutex);
  sleep(86400);
  clock_gettime(CLOCK_REALTIME, &end);
  *elapsed_s = (long)(end.tv_sec - start.tv_sec);
  return rc;
}
