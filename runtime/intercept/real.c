/* Resolution of REAL(name): libc's definitions behind our interceptors. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "real.h"

void *detsim__real_lookup(const char *name, const char *version) {
  void *p = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
  if (!p) p = dlsym(RTLD_DEFAULT, name);
  if (!p) {
    /* No stdio here: this can run before anything is set up. */
    static const char msg[] = "detsim: internal error: cannot find libc's ";
    ssize_t r = write(2, msg, sizeof msg - 1);
    r = write(2, name, strlen(name));
    r = write(2, "\n", 1);
    (void)r;
    abort();
  }
  return p;
}
