/* intercept_table.def as a C array the pass can search.
 *
 * The table is included, never copied: a function added there is rewritten,
 * yielded or warned about by the next build of the plugin.
 */
#include <string.h>

#include "pass_internal.h"

static const struct detsim_fn table[] = {
#define DETSIM_FN(name, canonical, cls, group, note) \
  {#name, #canonical, DETSIM_CLASS_##cls, note},
#include "runtime/intercept_table.def"
#undef DETSIM_FN
};

const struct detsim_fn *detsim__table_find(const char *name, size_t len) {
  /* Linear: the table has a few hundred lines and the pass looks up each
   * declaration of a module once, not each call. */
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (strlen(table[i].name) == len && memcmp(table[i].name, name, len) == 0)
      return &table[i];
  }
  return NULL;
}
