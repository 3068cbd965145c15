/* An uninstrumented library's clock reads are the program's: through the
 * sanitizer's interceptor of clock_gettime they reach virtual time, so a
 * 30 s sleep shows as 30 s in the library's readings too (and costs no real
 * time).  Read through the real clock, they would show no time at all. */
#include <stdio.h>
#include <unistd.h>

double clock_lib_now(void);

int main(void) {
  double before = clock_lib_now();
  sleep(30);
  double elapsed = clock_lib_now() - before;
  printf("library saw %s\n", elapsed >= 30.0 && elapsed < 31.0 ? "30 s" : "another time");
  if (elapsed < 30.0 || elapsed >= 31.0) printf("elapsed %.6f s\n", elapsed);
  return 0;
}
