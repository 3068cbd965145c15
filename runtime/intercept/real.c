/* Resolution of REAL(name): libc's definitions behind our interceptors. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "intercept/intercept.h"
#include "sanitize/sanitize.h"

/* dlsym frees the error string a failed lookup left behind (any lookup, the
 * sanitizer runtime's own too) with free(); a sanitizer's free calls
 * clock_gettime and pthread_self, which reach our interceptors, whose REAL
 * may not be resolved yet: a second dlsym inside the first would free the
 * same string again, without end.  Inside a lookup, the few functions a
 * sanitizer's allocator calls resolve to these equivalents instead. */
static __thread bool in_lookup;

static int fallback_clock_gettime(clockid_t id, struct timespec *ts) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_clock_gettime), "D"((long)id), "S"(ts) : "rcx", "r11", "memory");
  if (ret == 0) detsim__msan_unpoison(ts, sizeof *ts); /* the kernel wrote it */
  return ret < 0 ? -1 : 0;
}

static bool same_name(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

static pthread_t fallback_pthread_self(void) {
  pthread_t self;
  /* glibc's thread pointer: the thread's struct pthread points at itself. */
  __asm__("mov %%fs:0x10, %0" : "=r"(self));
  return self;
}

static void *fallback(const char *name) {
  if (same_name(name, "clock_gettime")) return (void *)fallback_clock_gettime;
  if (same_name(name, "pthread_self")) return (void *)fallback_pthread_self;
  return NULL;
}

/* write(2) as a bare system call: write() and syscall() are interceptors
 * (ours, a sanitizer's), and here none of them may run. */
static void raw_write(const char *text) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_write), "D"(2L), "S"(text), "d"(__builtin_strlen(text))
                   : "rcx", "r11", "memory");
  (void)ret;
}

static _Noreturn void lookup_failed(const char *why, const char *name) {
  /* No stdio here: this can run before anything is set up. */
  raw_write(why);
  raw_write(name);
  raw_write("\n");
  abort();
}

void *detsim__real_lookup_libc(const char *name, const char *version) {
  if (in_lookup) {
    void *p = fallback(name);
    if (!p) lookup_failed("detsim: internal error: libc function needed while resolving another: ", name);
    return p;
  }
  in_lookup = true;
  void *p = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
  if (!p) p = dlsym(RTLD_DEFAULT, name);
  in_lookup = false;
  if (!p) lookup_failed("detsim: internal error: cannot find libc's ", name);
  return p;
}

void *detsim__real_lookup(const char *name, const char *version) {
  void *p = detsim__real_lookup_libc(name, version);
#ifdef DETSIM_MSAN_RUNTIME
  /* Through MSan's interceptor, which unpoisons what libc writes (msan.c). */
  if (!in_lookup) {
    detsim__msan_init();
    p = detsim__msan_through_interceptor(name, p);
  }
#endif
  return p;
}

void *detsim__first_definition(const char *name) {
  if (in_lookup) return NULL;
  in_lookup = true;
  void *p = dlsym(RTLD_DEFAULT, name);
  in_lookup = false;
  return p;
}

void *detsim__next_definition(const char *name) {
  if (in_lookup) return NULL;
  in_lookup = true;
  void *p = dlsym(RTLD_NEXT, name);
  in_lookup = false;
  return p;
}
