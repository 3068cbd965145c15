/* Linked into a `detsim-cc --fuzz` build that also has a sanitizer
 * (detsim-cc adds it): the coverage counters' registration, defined in the
 * executable.
 *
 * Every sanitizer runtime (ASan, TSan, UBSan) carries a weak, empty
 * __sanitizer_cov_8bit_counters_init of its own, and it comes before the
 * detsim runtime in the lookup order (or is linked into the executable),
 * so the instrumented modules' constructors would hand their counters to
 * it and simfuzz would see no coverage.  A definition in the executable
 * wins over all of them; it passes the counters on to the runtime. */
#include <stdint.h>

void detsim_fuzz_counters_init(uint8_t *start, uint8_t *stop);
void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop);

__attribute__((visibility("default"))) void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop) {
  detsim_fuzz_counters_init(start, stop);
}
