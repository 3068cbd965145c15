/* The runtime's own threads (the watchdog, a process's dispatcher, the
 * first process's warden) across a fork under ThreadSanitizer.
 *
 * TSan decides in the child of a fork whether it can go on checking: only
 * if the forking process had one thread it knows of (ForkChildAfter counts
 * the live threads of its registry).  After a fork of several threads it
 * ignores everything the child does, and by default (die_after_fork) kills
 * a child that starts a thread.  The runtime's threads are TSan's too
 * (their creation goes through its pthread_create, so that its allocator
 * and interceptors work on them), so a process that is single-threaded to
 * the program would be a multi-threaded one to TSan.
 *
 * Rules of this file:
 *  - Under TSan, a fork whose forker is its process's only simulated
 *    thread first stops every helper (each waits on a word of its own; it
 *    is woken, sees `quit`, returns, and is joined through TSan's
 *    pthread_join), then waits for the exit paths of simulated threads that
 *    ended to be over: TSan then counts one thread.  The parent starts the
 *    stopped helpers again after the fork; the child starts its own
 *    (world_proc.c).
 *  - A fork of several simulated threads is a multi-threaded fork to TSan
 *    natively too: nothing is stopped, and the child is unchecked, as TSan
 *    does natively.  The runtime's threads of such a child still start
 *    (detsim sets die_after_fork=0); the program's first thread there ends
 *    the run as TSan's die_after_fork would (sanitize.c,
 *    detsim__tsan_thread_after_fork).
 *  - Without TSan nothing is stopped: a fork costs no more than before.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "limits.h"
#include "core/core.h"
#include "intercept/intercept.h"
#include "sanitize/sanitize.h"

extern void __tsan_init(void) __attribute__((weak));

static struct detsim_helper *helpers[DETSIM_HELPER_THREADS_MAX];
static unsigned helper_count;

static void note_helper(struct detsim_helper *h) {
  for (unsigned i = 0; i < helper_count; i++)
    if (helpers[i] == h) return;
  CHECK_LT(helper_count, DETSIM_HELPER_THREADS_MAX);
  helpers[helper_count++] = h;
}

/* Every helper waits with FUTEX_WAIT (its word may be the world's). */
static void futex_wake_all(uint32_t *word) { REAL(syscall)(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0); }

static void *helper_trampoline(void *arg) {
  struct detsim_helper *h = arg;
  void *r = h->main(NULL);
  __atomic_store_n(&h->gone, 1, __ATOMIC_RELEASE);
  futex_wake_all(&h->gone);
  return r;
}

int detsim__helper_start(struct detsim_helper *h) {
  CHECK(!h->running);
  CHECK(h->wake != NULL);
  note_helper(h);
  h->quit = 0;
  h->gone = 0;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  /* Joinable: a fork under TSan joins it, so that TSan has counted it out. */
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_JOINABLE);
  pthread_attr_setstacksize(&attr, h->stack_bytes);
  int r = detsim__os_thread_create(&h->thread, &attr, helper_trampoline, h);
  pthread_attr_destroy(&attr);
  if (r == 0) h->running = true;
  return r;
}

static void helper_stop(struct detsim_helper *h) {
  CHECK(h->running);
  __atomic_store_n(&h->quit, 1, __ATOMIC_RELEASE);
  /* It may look at `quit` just before it waits: wake it until it is gone. */
  struct timespec ms = { 0, 1000000L };
  while (__atomic_load_n(&h->gone, __ATOMIC_ACQUIRE) == 0) {
    futex_wake_all(h->wake);
    REAL(syscall)(SYS_futex, &h->gone, FUTEX_WAIT, 0, &ms, NULL, 0);
  }
  int r = detsim__os_thread_join(h->thread, NULL);
  CHECK_EQ(r, 0);
  h->running = false;
}

/* The process's threads, as the kernel counts them (/proc/self/stat's 20th
 * field); -1 if it cannot be read. */
static long os_threads(void) {
  int fd = REAL(open)("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  ssize_t n = REAL(read)(fd, buf, sizeof buf - 1);
  REAL(close)(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  const char *p = strrchr(buf, ')'); /* the name may hold spaces */
  if (p == NULL) return -1;
  /* After ") ": state is field 3; num_threads field 20. */
  for (int field = 2; field < 20 && p != NULL; field++) p = strchr(p + 1, ' ');
  return p != NULL ? strtol(p + 1, NULL, 10) : -1;
}

/* This process is the child of a multi-threaded fork to TSan, or of a
 * process that was (TSan's mark is inherited); the fork in progress is one. */
static bool tsan_mt_fork_child, fork_mt;

bool detsim__tsan_after_mt_fork(void) { return tsan_mt_fork_child; }

void detsim__helpers_pause_for_fork(unsigned live_threads) {
  if (!__tsan_init) return;
  fork_mt = live_threads != 1;
  if (fork_mt) return;
  for (unsigned i = 0; i < helper_count; i++)
    if (helpers[i]->running) {
      helper_stop(helpers[i]);
      helpers[i]->paused = true;
    }
  /* Threads the program ended run their real exit (and TSan's count of
   * them) after the next thread took over: wait for them.  What remains
   * is the forker and TSan's own background thread, which TSan does not
   * count. */
  struct timespec ms = { 0, 1000000L };
  for (unsigned waited_ms = 0; waited_ms < DETSIM_FORK_THREAD_EXIT_WAIT_MS; waited_ms++) {
    long n = os_threads();
    if (n >= 0 && n <= 2) break;
    REAL(nanosleep)(&ms, NULL);
  }
}

void detsim__helpers_after_fork_parent(void) {
  fork_mt = false;
  for (unsigned i = 0; i < helper_count; i++)
    if (helpers[i]->paused) {
      helpers[i]->paused = false;
      int r = detsim__helper_start(helpers[i]);
      if (r != 0) detsim__msg("warning: cannot start the %s thread again after a fork: %s", helpers[i]->name, strerror(r));
    }
}

void detsim__helpers_forget_in_child(void) {
  if (fork_mt) tsan_mt_fork_child = true;
  fork_mt = false;
  /* None of them is in a child: it starts the ones it needs. */
  for (unsigned i = 0; i < helper_count; i++) {
    helpers[i]->running = false;
    helpers[i]->paused = false;
  }
}
