/* Only compiles with the arguments its compile command gives it (a define
 * and an include directory the test makes): proves detsim-lint uses each
 * file's own command, from its directory.  One planted escape. */
#ifndef LINT_FROM_DB
#error "compiled without its compile command's arguments"
#endif
#include "lint_db.h"
#include <semaphore.h>

sem_t *open_named(void) {
  return sem_open(LINT_DB_COMMAND, 0); /* PLANT unsupported-call warning sem_open */
}
