/* Only compiles with the arguments its compile command gives it (a define
 * and an include directory the test makes): proves detsim-lint uses each
 * file's own command, from its directory.  One planted escape. */
#ifndef LINT_FROM_DB
#error "compiled without its compile command's arguments"
#endif
#include "lint_db.h"
#include <sys/mman.h>

int open_shared(void) {
  return shm_open(LINT_DB_COMMAND, 0, 0); /* PLANT unsupported-call warning shm_open */
}
