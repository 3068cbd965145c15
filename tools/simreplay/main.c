/* simreplay: replay one seed exactly, or compare two builds (see
 * simreplay.h for the parts and `simreplay --help` for the contract).
 * main picks the mode: --compare, --break-at, --shrink, or replay (with --repeat and
 * --trace). */
#include "simreplay.h"

int main(int argc, char **argv) {
  st_prog = "simreplay";
  struct sr_args a;
  sr_parse_args(argc, argv, &a);
  if (a.compare_release) return sr_compare(&a);
  struct sr_target t;
  sr_target_resolve(&a, &t);
  if (a.break_at) return sr_break_at(&a, &t);
  if (a.shrink) return sr_shrink(&a, &t);
  return sr_replay(&a, &t);
}
