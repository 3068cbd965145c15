/* REAL(name): the libc function the runtime intercepts.
 *
 * The runtime exports interceptors under libc's own names, so inside the
 * runtime a plain call to e.g. pthread_mutex_lock would call the interceptor
 * again.  Every call to a function the runtime intercepts goes through
 * REAL(name) instead, which is the next definition in the lookup order
 * (libc's), found once with dlsym(RTLD_NEXT).  For pthread_cond_* the 2.3.2
 * symbol version is the current one and must be asked for by version.
 */
#ifndef DETSIM_REAL_H
#define DETSIM_REAL_H

#include <stddef.h>

void *detsim__real_lookup(const char *name, const char *version);

/* The first definition of `name` in the global lookup order (a sanitizer's
 * interceptor comes before ours), or NULL. */
void *detsim__first_definition(const char *name);

/* Declares `static typeof(&name) detsim__real_<name>` resolved on first use. */
#define REAL(name) \
  (__extension__({ \
    static __typeof__(&name) detsim__real_##name##_p; \
    if (__builtin_expect(detsim__real_##name##_p == NULL, 0)) \
      detsim__real_##name##_p = (__typeof__(&name))detsim__real_lookup(#name, NULL); \
    detsim__real_##name##_p; \
  }))

#define REAL_VERSIONED(name, version) \
  (__extension__({ \
    static __typeof__(&name) detsim__real_##name##_p; \
    if (__builtin_expect(detsim__real_##name##_p == NULL, 0)) \
      detsim__real_##name##_p = (__typeof__(&name))detsim__real_lookup(#name, version); \
    detsim__real_##name##_p; \
  }))

/* Interceptor definition helpers: the pass calls __detsim_<name>, uninstrumented
 * libraries call <name>; both reach the same code. */
#define DETSIM_EXPORT __attribute__((visibility("default")))
#define DETSIM_INTERCEPT_ALIAS(name) \
  DETSIM_EXPORT __typeof__(name) name __attribute__((alias("__detsim_" #name)));

#endif
