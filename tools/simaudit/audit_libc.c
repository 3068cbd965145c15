/* Which libc functions escape the simulation, for simaudit.
 *
 * runtime/intercept_table.def decides first: REWRITE and YIELD functions are
 * the simulation's, PASSTHROUGH ones are known to be safe, UNSUPPORTED ones
 * escape (its note says why).  A function the table does not name is safe
 * only if libc_known.def lists it; any other is an escape, "not known to
 * the simulation", since nobody has looked at what it does to the kernel.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "audit.h"

enum audit_class { AUDIT_REWRITE, AUDIT_YIELD, AUDIT_PASSTHROUGH, AUDIT_UNSUPPORTED };

struct audit_fn {
  const char *name;
  enum audit_class cls;
  const char *note;
};

static const struct audit_fn table[] = {
#define DETSIM_FN(name, canonical, cls, group, note) {#name, AUDIT_##cls, note},
#include "../../runtime/intercept_table.def"
#undef DETSIM_FN
};

static const char *const known[] = {
#define AUDIT_KNOWN(name) #name,
#include "libc_known.def"
#undef AUDIT_KNOWN
};

#define WHY_UNKNOWN "not known to the simulation (neither runtime/intercept_table.def nor simaudit's list of safe functions names it)"

bool audit_libc_escape(const char *name, char *why, size_t len) {
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    if (strcmp(table[i].name, name) != 0) continue;
    if (table[i].cls != AUDIT_UNSUPPORTED) return false;
    snprintf(why, len, "not simulated by detsim: %s", table[i].note);
    return true;
  }
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (strcmp(known[i], name) == 0) return false;
  snprintf(why, len, "%s", WHY_UNKNOWN);
  return true;
}

bool audit_libc_in_table(const char *name) {
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (strcmp(table[i].name, name) == 0) return true;
  return false;
}
