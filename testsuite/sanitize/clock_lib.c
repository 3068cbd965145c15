/* An uninstrumented shared library (built by plain clang, not detsim-cc)
 * that reads the clock itself: under a sanitizer its call reaches the
 * runtime through the sanitizer's interceptor, on the program's behalf. */
#include <time.h>

double clock_lib_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
