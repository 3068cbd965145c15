/* A plain build that nevertheless carries a detsim symbol in its dynamic
 * symbol table (linked with -rdynamic): simreplay --compare must flag it as
 * a release build carrying traces of detsim (exit status 1). */
#include <stdio.h>

void detsim_leftover_marker(void) {}

int main(void) {
  detsim_leftover_marker();
  printf("release\n");
  return 0;
}
