/* A helper of planted.c, compiled with plain clang (no plugin) into a static
 * library: its atomic has no yield point, and simaudit must name it. */
static int hits;

int helper_count(void) {
  return __atomic_add_fetch(&hits, 1, __ATOMIC_SEQ_CST); /* PLANT atomic */
}
