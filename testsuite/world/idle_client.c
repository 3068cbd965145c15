/* A world test client that sleeps SECONDS of virtual time and exits 0,
 * making no progress meanwhile (no detsim_progress, no exit before).
 *
 *   idle_client SECONDS
 */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  sleep((unsigned)(argc > 1 ? atoi(argv[1]) : 40));
  return 0;
}
