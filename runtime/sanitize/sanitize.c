/* Sanitizer runtimes in a simulation build: where their code is, and how a
 * report of theirs ends the run. */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "intercept/intercept.h"
#include "core/core.h"
#include "sched/sched.h"
#include "sanitize/sanitize.h"

/* Weak: present only when the program is linked with a sanitizer. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
extern void __asan_init(void) __attribute__((weak));
extern void __tsan_init(void) __attribute__((weak));
extern void __msan_init(void) __attribute__((weak));
extern void __lsan_do_leak_check(void) __attribute__((weak));
extern void __ubsan_handle_add_overflow(void *, void *, void *) __attribute__((weak));

/* Executable segments of the sanitizer runtimes. */
static struct { uintptr_t lo, hi; } segments[DETSIM_SANITIZER_SEGMENTS_MAX];
static unsigned segment_count;

static void add_segment(uintptr_t lo, uintptr_t hi) {
  if (segment_count == DETSIM_SANITIZER_SEGMENTS_MAX) {
    detsim__msg("error: more than DETSIM_SANITIZER_SEGMENTS_MAX=%d code segments in sanitizer runtimes",
                DETSIM_SANITIZER_SEGMENTS_MAX);
    detsim__finish(DETSIM_CLASS_inconclusive, 0, "reason=limit");
  }
  segments[segment_count].lo = lo;
  segments[segment_count].hi = hi;
  segment_count++;
}

static int note_object(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  (void)arg;
  if (!info->dlpi_name || !strstr(info->dlpi_name, "libclang_rt.")) return 0;
  for (unsigned i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    add_segment(info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz);
  }
  detsim__sanitize_note_shared_runtime(info->dlpi_name, info->dlpi_addr);
  return 0;
}

bool detsim__from_sanitizer_pc(uintptr_t pc) {
  for (unsigned i = 0; i < segment_count; i++)
    if (pc >= segments[i].lo && pc < segments[i].hi) return true;
  return false;
}

bool detsim__sanitizer_internal_pc(uintptr_t pc) {
  return detsim__from_sanitizer_pc(pc) && !detsim__sanitizer_interceptor_pc(pc);
}

const char *detsim__sanitizer_name(void) {
  if (__tsan_init) return "thread";
  if (__msan_init) return "memory";
  if (__asan_init) return "address";
  if (__lsan_do_leak_check) return "leak";
  if (__ubsan_handle_add_overflow) return "undefined";
  return NULL;
}

/* The sanitizer has printed its report and is about to exit with its own
 * status: the run ends as a crash instead, with the trace and result line. */
static void on_sanitizer_death(void) {
  char extra[64];
  /* UBSan and LeakSanitizer in an ASan build die through the same callback;
   * their reports name themselves, the result line names the runtime. */
  snprintf(extra, sizeof extra, "sanitizer=%s", detsim__sanitizer_name() ? detsim__sanitizer_name() : "unknown");
  detsim__report_no_flush();
  detsim__finish(DETSIM_CLASS_crash, 0, extra);
}

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int join_fn(pthread_t, void **);
typedef int detach_fn(pthread_t);
static create_fn *sanitizer_create;
static join_fn *sanitizer_join;
static detach_fn *sanitizer_detach;
static __thread bool passing_through;
static __thread bool inside_sanitizer_call;

static __thread bool in_interceptor;

void detsim__sanitizer_called_us(bool yes) { inside_sanitizer_call = in_interceptor = yes; }

bool detsim__in_sanitizer_interceptor(void) { return in_interceptor; }

/* The sanitizer's own definition of `name`, if it has one. */
static void *sanitizer_definition(const char *name) {
  void *p = detsim__first_definition(name);
  return p && detsim__from_sanitizer_pc((uintptr_t)p) ? p : NULL;
}

bool detsim__sanitizer_passing_through(void) {
  if (!passing_through) return false;
  passing_through = false;
  return true;
}

int detsim__os_thread_create(pthread_t *out, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
  bool wrapped = inside_sanitizer_call;
  inside_sanitizer_call = false;
  /* Called from the sanitizer's own interceptor (an uninstrumented library
   * called pthread_create): the sanitizer wraps this thread already. */
  if (wrapped && __tsan_init && detsim__running()) {
    /* TSan's pthread_create waits, on a futex of its own, until the new
     * thread has started; a simulated thread starts only when the schedule
     * picks it, and the creator holds the schedule: it would wait forever. */
    detsim__msg("error: a thread created by uninstrumented code (std::thread, a library's own thread) under "
                "-fsanitize=thread: ThreadSanitizer's pthread_create waits for the new thread to start, which "
                "a simulated thread does only when the schedule picks it; not supported (build with "
                "-fsanitize=address, or create the thread with pthread_create from code detsim-cc compiled)");
    detsim__finish(DETSIM_CLASS_inconclusive, 0, "reason=unsupported");
  }
  if (wrapped) return REAL_PAST_SANITIZER(pthread_create)(out, attr, start, arg);
  if (!sanitizer_create) return REAL(pthread_create)(out, attr, start, arg);
  passing_through = true;
  int r = sanitizer_create(out, attr, start, arg);
  passing_through = false;
  return r;
}

int detsim__os_thread_join(pthread_t thread, void **retval) {
  bool wrapped = inside_sanitizer_call;
  inside_sanitizer_call = false;
  if (wrapped) return REAL_PAST_SANITIZER(pthread_join)(thread, retval);
  if (!sanitizer_join) return REAL(pthread_join)(thread, retval);
  passing_through = true;
  int r = sanitizer_join(thread, retval);
  passing_through = false;
  return r;
}

/* TSan's die_after_fork as the user set it (TSAN_OPTIONS; the last
 * setting wins, as TSan parses them), else its default, true.  detsim's
 * own default is false (tsan_defaults.c), so that the runtime's threads of
 * a child start; the program's are refused here instead. */
static bool user_die_after_fork(void) {
  const char *opts = getenv("TSAN_OPTIONS");
  bool die = true;
  static const char key[] = "die_after_fork=";
  for (const char *p = opts; p != NULL && (p = strstr(p, key)) != NULL; p += sizeof key - 1) {
    if (p != opts && !strchr(" :,\t\n", p[-1])) continue;
    const char *v = p + sizeof key - 1;
    die = !(v[0] == '0' || strncmp(v, "false", 5) == 0);
  }
  return die;
}

void detsim__tsan_thread_after_fork(void) {
  if (!__tsan_init || !detsim__tsan_after_mt_fork() || !user_die_after_fork()) return;
  /* TSan's own words, and its end: a report's. */
  detsim__msg("error: ThreadSanitizer: starting new threads after multi-threaded fork is not supported. Dying (set "
              "die_after_fork=0 to override)");
  detsim__report_no_flush();
  detsim__finish(DETSIM_CLASS_crash, 0, "sanitizer=thread");
}

int detsim__os_thread_detach(pthread_t thread) {
  /* TSan keeps a joinable thread's pthread_t until it is joined or
   * detached: one it never saw detached, once glibc gives its pthread_t to
   * a new thread, fails TSan's own check at that thread's creation. */
  bool wrapped = inside_sanitizer_call;
  inside_sanitizer_call = false;
  if (!sanitizer_detach || wrapped) return REAL(pthread_detach)(thread);
  passing_through = true;
  int r = sanitizer_detach(thread);
  passing_through = false;
  return r;
}

static void *no_work(void *arg) { return arg; }

void detsim__sanitize_init(void) {
  dl_iterate_phdr(note_object, NULL);
  uintptr_t lo, hi;
  if (segment_count == 0 && detsim__sanitizer_name() != NULL && detsim__sanitize_find_static_runtime(&lo, &hi))
    add_segment(lo, hi);
  if (segment_count) {
    sanitizer_create = (create_fn *)sanitizer_definition("pthread_create");
    sanitizer_join = (join_fn *)sanitizer_definition("pthread_join");
    sanitizer_detach = (detach_fn *)sanitizer_definition("pthread_detach");
  }
  if (__tsan_init && sanitizer_create && sanitizer_join) {
    /* TSan starts a background thread of its own inside the first
     * pthread_create it intercepts, through the same interceptor: start it
     * now, before the simulation, so no simulated thread's creation is
     * mistaken for it. */
    pthread_t t;
    if (sanitizer_create(&t, NULL, no_work, NULL) == 0) sanitizer_join(t, NULL);
  }
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);
}

static bool leak_checking;

void detsim__sanitize_exit_check(void) {
  if (!__lsan_do_leak_check || leak_checking) return;
  leak_checking = true;
  /* The check stops the world and reads /proc through libc: those calls are
   * the sanitizer's, not events of the program. */
  detsim__internal_begin();
  __lsan_do_leak_check();
  detsim__internal_end();
}
