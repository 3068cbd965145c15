/* sanitize/: the one header of the runtime's sanitize part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_SANITIZE_PART_H
#define DETSIM_SANITIZE_PART_H

/* Running under a compiler-rt sanitizer (ASan, LSan, UBSan, TSan).
 *
 * The sanitizer's runtime is a shared library of its own (detsim-cc links
 * it with -shared-libsan), first in the lookup order: its interceptors call
 * ours, and its own internals (its allocator reads the clock, its locks ask
 * pthread_self) reach our interceptors too.  Those internal calls are not
 * the program's: they must neither yield nor move virtual time, or a thread
 * would be switched out while holding the sanitizer's locks. */

#include <stdbool.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* Finds the sanitizer runtime's code and registers the death callback that
 * ends the run as `crash sanitizer=<name>` after the sanitizer's report. */
void detsim__sanitize_init(void);

/* True when `pc` (a return address) is in a sanitizer runtime's code. */
bool detsim__from_sanitizer_pc(uintptr_t pc);
#define DETSIM_FROM_SANITIZER() detsim__from_sanitizer_pc((uintptr_t)__builtin_return_address(0))
/* True when `pc` is in a sanitizer's code but not in one of its
 * interceptors: the sanitizer's own call, not one it makes for the program
 * (an uninstrumented library's read reaches us through its interceptor). */
bool detsim__sanitizer_internal_pc(uintptr_t pc);
#define DETSIM_SANITIZER_INTERNAL() detsim__sanitizer_internal_pc((uintptr_t)__builtin_return_address(0))

/* static_runtime.c: sanitizer code found by its symbols.  The span of a
 * runtime linked statically into the executable (false when there is none
 * or it cannot be told from the program's code, with a warning saying so). */
bool detsim__sanitize_find_static_runtime(uintptr_t *lo, uintptr_t *hi);
/* Notes the interceptors of a shared sanitizer runtime at `path`. */
void detsim__sanitize_note_shared_runtime(const char *path, uintptr_t bias);
/* True when `pc` is inside an interceptor function of a sanitizer. */
bool detsim__sanitizer_interceptor_pc(uintptr_t pc);

/* The sanitizer in the program ("address", "thread", ...), NULL if none. */
const char *detsim__sanitizer_name(void);

/* At a normal exit: runs LeakSanitizer's check now (if it is in the
 * program and its own exit check has not run yet), so a leak ends the run
 * as a crash before the pass line. */
void detsim__sanitize_exit_check(void);

/* The OS thread behind a simulated thread, created and reaped through the
 * sanitizer's own pthread_create/pthread_join when it has them (so it knows
 * the thread: its stack, its id in reports, for TSan its happens-before),
 * else libc's.  The sanitizer's interceptor then calls ours, which passes
 * that one call through to libc. */
int detsim__os_thread_create(pthread_t *out, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int detsim__os_thread_join(pthread_t thread, void **retval);
int detsim__os_thread_detach(pthread_t thread);
/* True (once) inside the sanitizer's pthread_create/join called above. */
bool detsim__sanitizer_passing_through(void);
/* Our pthread_create/join was called by the sanitizer's interceptor of it
 * (for an uninstrumented caller): the next OS thread create or join is
 * libc's, the sanitizer having done its part already. */
void detsim__sanitizer_called_us(bool yes);
/* Inside that call: the sanitizer may hold its own locks around it (ASan's
 * thread table, while it creates a thread), so the thread must not be
 * switched out before the interceptor returns. */
bool detsim__in_sanitizer_interceptor(void);

/* A thread of the runtime's own (helper_threads.c): the watchdog, a
 * process's dispatcher, the first process's warden.  Its `main` waits on
 * `wake` (with FUTEX_WAIT) and returns once detsim__helper_quit(h) is
 * true; it is stopped around a fork under ThreadSanitizer, so that TSan
 * sees the fork of a single-threaded process as one. */
struct detsim_helper {
  const char *name;
  void *(*main)(void *);
  size_t stack_bytes;
  uint32_t *wake;
  pthread_t thread;
  bool running, paused;
  uint32_t quit, gone;
};
int detsim__helper_start(struct detsim_helper *h);
static inline bool detsim__helper_quit(const struct detsim_helper *h) {
  return __atomic_load_n(&h->quit, __ATOMIC_ACQUIRE) != 0;
}
/* Before the real fork: under TSan, with `live_threads` (the simulated
 * threads of the process) 1, stops every helper.  After it the parent
 * calls detsim__helpers_after_fork_parent (which starts the stopped ones
 * again), the child detsim__helpers_forget_in_child before it starts its
 * own. */
void detsim__helpers_pause_for_fork(unsigned live_threads);
void detsim__helpers_after_fork_parent(void);
void detsim__helpers_forget_in_child(void);
/* This process is, to TSan, the child of a multi-threaded fork (or its
 * descendant): TSan ignores all it does, and its program may start no
 * thread (die_after_fork). */
bool detsim__tsan_after_mt_fork(void);
/* At the program's thread creation: in such a process, ends the run as
 * TSan's die_after_fork does natively (crash sanitizer=thread), unless
 * TSAN_OPTIONS sets die_after_fork=0. */
void detsim__tsan_thread_after_fork(void);

/* Happens-before for ThreadSanitizer.  The runtime's own code is not
 * instrumented, so TSan sees none of the simulated synchronization (a
 * simulated mutex is words the runtime updates, a hand-over between threads
 * a futex): each simulated object tells it, on its own address, what it
 * orders: a release where a thread publishes (unlock, post, send), an
 * acquire where a thread takes what was published (lock, wait, receive).
 * Nothing else orders threads for TSan, so the schedule's own hand-overs
 * do not hide races.  Without TSan these are a test of a weak symbol. */
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

static inline void detsim__hb_acquire(const volatile void *obj) {
  if (__tsan_acquire) __tsan_acquire((void *)(uintptr_t)obj);
}
static inline void detsim__hb_release(const volatile void *obj) {
  if (__tsan_release) __tsan_release((void *)(uintptr_t)obj);
}

/* MemorySanitizer (msan.c): only in the runtime's -fsanitize=memory copy,
 * built with DETSIM_MSAN_RUNTIME. */
#ifdef DETSIM_MSAN_RUNTIME
/* Code MSan does not instrument at all: it may run before MSan has mapped
 * its shadow (during __msan_init), where any instrumented access faults. */
#define DETSIM_MSAN_NO_INSTRUMENT __attribute__((disable_sanitizer_instrumentation))
/* True once the runtime's constructor has started: MSan's start-up is over. */
extern volatile bool detsim__msan_ready;
/* The definition of `name` after this runtime's (libc's), from uninstrumented
 * code (for the early gates). */
void *detsim__msan_early_next(const char *name) DETSIM_MSAN_NO_INSTRUMENT;
/* First thing in the runtime's constructor: aims MSan's pointers to the real
 * functions that point at our interceptors at trampolines that tell the
 * runtime's own REAL calls (to libc) from everyone else's (to ours). */
void detsim__msan_init(void);
/* REAL(name)'s target: MSan's interceptor of `name` if it has one (so its
 * outputs are unpoisoned), entered through a trampoline that marks the call
 * as ours; else `real`. */
void *detsim__msan_through_interceptor(const char *name, void *real);

/* An export of the runtime that MSan's own start-up calls (before its
 * shadow exists): `ret name params` defined here as an uninstrumented gate
 * that calls libc's until the runtime's constructor has run, then
 * `__detsim_<name> args`.  Stands for DETSIM_INTERCEPT_ALIAS(name). */
#define DETSIM_MSAN_EARLY(ret, name, params, args) \
  DETSIM_EXPORT DETSIM_MSAN_NO_INSTRUMENT ret name params { \
    static ret(*libc_##name) params; \
    if (__builtin_expect(!detsim__msan_ready, 0)) { \
      if (!libc_##name) libc_##name = (ret(*) params)detsim__msan_early_next(#name); \
      return libc_##name args; \
    } \
    return __detsim_##name args; \
  }
#else
#define DETSIM_MSAN_EARLY(ret, name, params, args) DETSIM_INTERCEPT_ALIAS(name)
#endif

/* Memory that code MSan does not see filled (the kernel through a bare
 * system call, libunwind): its bytes are initialized from here on.  Nothing
 * without -fsanitize=memory. */
#ifdef DETSIM_MSAN_RUNTIME
void __msan_unpoison(const volatile void *a, size_t size);
void __msan_unpoison_string(const volatile char *a);
#define detsim__msan_unpoison(p, n) __msan_unpoison((p), (n))
#define detsim__msan_unpoison_string(s) __msan_unpoison_string(s)
#else
#define detsim__msan_unpoison(p, n) ((void)(p), (void)(n))
#define detsim__msan_unpoison_string(s) ((void)(s))
#endif

/* Around calls into libunwind (not instrumented): the libc functions it
 * calls with its own buffers (strlen on a path it built) reach MSan's
 * interceptors, whose checks would report them; natively libunwind is not
 * in an MSan program at all.  Nothing without -fsanitize=memory. */
#ifdef DETSIM_MSAN_RUNTIME
void __msan_scoped_disable_interceptor_checks(void);
void __msan_scoped_enable_interceptor_checks(void);
#define detsim__msan_uninstrumented_begin() __msan_scoped_disable_interceptor_checks()
#define detsim__msan_uninstrumented_end() __msan_scoped_enable_interceptor_checks()
#else
#define detsim__msan_uninstrumented_begin() ((void)0)
#define detsim__msan_uninstrumented_end() ((void)0)
#endif

#endif /* DETSIM_SANITIZE_PART_H */
