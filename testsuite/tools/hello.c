/* A plain program (built with clang, no detsim): both tools must refuse it
 * as "not a simulation build" (exit status 3). */
#include <stdio.h>

int main(void) {
  printf("hello\n");
  return 0;
}
