/* How a run ends: the result line, the trace file, crash handling.
 *
 * detsim__finish may be entered from any thread, from a signal handler, or
 * from the watchdog while a simulated thread is stuck; the first caller wins
 * and the others wait to be killed by its exit.  It writes with write(2)
 * wherever it can and ends with the exit_group system call, which no
 * interceptor stands in front of.
 */
#include "disk/disk.h"
#include "core/core.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <libunwind.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "time/time.h"
#include "signal/signal.h"
#include "trace/trace.h"
#include "libc/libc.h"
#include "fuzz/fuzz.h"
#include "proc/proc.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "sanitize/sanitize.h"
#include "world/world.h"

static const char *const class_names[DETSIM_CLASS_COUNT] = {
#define DETSIM_CLASS(name, status, desc) #name,
#include "classes.inc"
#undef DETSIM_CLASS
};
static const int class_status[DETSIM_CLASS_COUNT] = {
#define DETSIM_CLASS(name, status, desc) status,
#include "classes.inc"
#undef DETSIM_CLASS
};

static int finishing;        /* first caller of finish wins */
static __thread int in_signal;

void detsim__report_no_flush(void) { in_signal = 1; }

bool detsim__report_finishing(void) { return __atomic_load_n(&finishing, __ATOMIC_ACQUIRE) != 0; }

const char *detsim__class_name(enum detsim_class cls) {
  return (unsigned)cls < DETSIM_CLASS_COUNT ? class_names[cls] : "?";
}

bool detsim__write_all(int fd, const void *p, size_t n) {
  const char *b = p;
  while (n > 0) {
    ssize_t k = write(fd, b, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    b += k;
    n -= (size_t)k;
  }
  return true;
}

void detsim__msg(const char *fmt, ...) {
  char buf[1024];
  int k = snprintf(buf, sizeof buf, "detsim: ");
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(buf + k, sizeof buf - (size_t)k - 1, fmt, ap);
  va_end(ap);
  if (m < 0) m = 0;
  size_t len = (size_t)k + ((size_t)m < sizeof buf - (size_t)k - 1 ? (size_t)m : sizeof buf - (size_t)k - 2);
  buf[len++] = '\n';
  detsim__write_all(2, buf, len);
}

static _Noreturn void exit_now(int status) {
  REAL(syscall)(SYS_exit_group, status);
  __builtin_unreachable();
}

const char *detsim__trace_path(char *buf, size_t len) {
  const char *t = detsim__opt.trace;
  if (!strcmp(t, "none")) return NULL;
  if (t[0]) return t;
  snprintf(buf, len, "detsim-%" PRIu64 ".trace", W.seed);
  return buf;
}

void detsim__report_checks(void);
void detsim__report_points(void);

void detsim__write_result(enum detsim_class cls, int exit_status, const char *extra) {
  detsim__plan_check_processes(); /* replaying: the plan's processes were the run's */
  detsim__report_checks();
  detsim__report_points();
  detsim__plan_write_out(detsim__class_name(cls), detsim__events(), detsim__history_hash());
  detsim__fuzz_write_out();
  char line[1024];
  uint64_t now = detsim__now_ns();
  int k = snprintf(line, sizeof line, "detsim: %s seed=%" PRIu64 " events=%" PRIu64 " history=%016" PRIx64
                   " sim_time=%" PRIu64 ".%06" PRIu64 "s output=%016" PRIx64,
                   detsim__class_name(cls), W.seed, detsim__events(), detsim__history_hash(),
                   now / UINT64_C(1000000000), (now % UINT64_C(1000000000)) / UINT64_C(1000),
                   detsim__output_digest());
  if (cls == DETSIM_CLASS_exit || (cls == DETSIM_CLASS_pass && exit_status != 0))
    k += snprintf(line + k, sizeof line - (size_t)k, " exit_status=%d", exit_status);
  if (detsim__choices_on)
    k += snprintf(line + k, sizeof line - (size_t)k, " choices_used=%" PRIu64 "/%" PRIu64, detsim__choices_used(),
                  detsim__choices_len());
  if (extra && extra[0]) k += snprintf(line + k, sizeof line - (size_t)k, " %s", extra);
  /* A process of the run ran a binary outside the simulation. */
  const char *outside = detsim__proc_exec_result_extra();
  if (outside[0] && (size_t)k < sizeof line) k += snprintf(line + k, sizeof line - (size_t)k, " %s", outside);
  if ((size_t)k >= sizeof line - 1) k = (int)sizeof line - 2;
  line[k++] = '\n';
  detsim__write_all(2, line, (size_t)k);
}

/* Another thread is ending the run: wait for its exit to kill us.  libc's
 * pause, not ours: the simulated one would block this thread in the
 * schedule, whose state an ending run no longer vouches for. */
static _Noreturn void park_until_killed(void) {
  for (;;) REAL(pause)();
}

_Noreturn void detsim__finish(enum detsim_class cls, int exit_status, const char *extra) {
  if (__atomic_exchange_n(&finishing, 1, __ATOMIC_ACQ_REL)) {
    park_until_killed();
  }
  /* A forked child ending by itself (an exit, a signal) is an event of the
   * world, not the run's end.  Its streams flush as in an exit, through the
   * simulation (a pipe to its parent gets their bytes): the world goes on,
   * so detsim__stdio_end's real-descriptors-only flush is not for it. */
  if (detsim__proc_is_forked() && detsim__self() != NULL && W.current == detsim__self() &&
      (cls == DETSIM_CLASS_pass || cls == DETSIM_CLASS_exit || (cls == DETSIM_CLASS_crash && detsim__proc_ending_signal))) {
    /* A signal ends it as the kernel would: its stdio buffers are lost. */
    if (!in_signal && cls != DETSIM_CLASS_crash) fflush(NULL);
    int sig = detsim__proc_ending_signal;
    detsim__proc_end(cls == DETSIM_CLASS_crash ? detsim__proc_signal_status(sig) : (exit_status & 0xff) << 8);
    exit_now(cls == DETSIM_CLASS_crash ? 128 + sig : exit_status);
  }
  /* A failure after a storage fault beyond the envelope is excused. */
  cls = (enum detsim_class)detsim__disk_class((int)cls);
  /* What the program's streams still buffer is its output (exit flushes
   * it natively), and belongs in the history the trace and the result line
   * show; a crash loses it, as natively. */
  if (!in_signal) {
    detsim__stdio_end();
    fflush(NULL);
  }
  char extra_all[1024];
  snprintf(extra_all, sizeof extra_all, "%s", extra ? extra : "");
  bool failure = cls != DETSIM_CLASS_pass;
  bool as_expected = detsim__opt.expect_history[0] &&
                     strtoull(detsim__opt.expect_history, NULL, 16) == detsim__history_hash();
  /* A run stopped from outside writes no trace file: whoever stopped it
   * may kill it soon (simrun's grace period); the tail is printed. */
  bool stopped = __atomic_load_n(&detsim__outside_sig, __ATOMIC_ACQUIRE) != 0 && cls == DETSIM_CLASS_inconclusive;
  if ((failure || detsim__opt.trace_always) && W.running && !as_expected && !stopped) {
    char buf[DETSIM_PATH_BYTES_MAX + 32];
    const char *path = detsim__trace_path(buf, sizeof buf);
    /* A world's node writes its part; the launcher merges the parts and
     * names the trace on the world's result line.  In a run's own world
     * the first process merges every process's part (world_trace_merge.c):
     * another process that ends the run writes its own and asks. */
    if (detsim__world_hosts()) {
      detsim__world_trace_part();
    } else if (detsim__world_solo && path && detsim__ws->trace_file[0]) {
      if (!__atomic_load_n(&detsim__ws->ended, __ATOMIC_ACQUIRE)) detsim__ws->end_class = (int32_t)cls;
      detsim__ws->trace_merge = 1;
      bool merged = detsim__node_index != 0 ? (detsim__world_trace_part(), true) : detsim__world_trace_merge() == 0;
      size_t k = strlen(extra_all);
      if (merged) snprintf(extra_all + k, sizeof extra_all - k, "%strace=%s", k ? " " : "", path);
    } else if (path && detsim__trace_write(path) == 0) {
      size_t k = strlen(extra_all);
      snprintf(extra_all + k, sizeof extra_all - k, "%strace=%s", k ? " " : "", path);
    }
    if (failure && !detsim__opt.quiet && detsim__opt.trace_tail) {
      detsim__msg("last events (event time thread kind object value site):");
      detsim__trace_print_tail(2, (unsigned)detsim__opt.trace_tail);
    }
  } else if (stopped && W.running && !detsim__opt.quiet && detsim__opt.trace_tail) {
    detsim__msg("last events (event time thread kind object value site):");
    detsim__trace_print_tail(2, (unsigned)detsim__opt.trace_tail);
  }
  if (detsim__world_solo && detsim__node_index != 0) {
    /* Another process of a run's own world found the run's end: the
     * first process's warden writes the result line (and fuzz_out, with
     * what this one reached). */
    detsim__fuzz_world_give();
    detsim__world_end(cls, exit_status, extra_all);
    exit_now(class_status[cls]);
  }
  detsim__proc_teardown();
  if (detsim__world_hosts()) {
    /* Before the end is published: the launcher kills the nodes soon
     * after, this one too. */
    detsim__fuzz_write_out();
    char node_extra[1024];
    /* Liveness is the whole world's failure, whichever node noticed it. */
    if (cls == DETSIM_CLASS_liveness) snprintf(node_extra, sizeof node_extra, "%s", extra_all);
    else snprintf(node_extra, sizeof node_extra, "node=%s%s%s", detsim__ws->nodes[detsim__node_index].name,
                  extra_all[0] ? " " : "", extra_all);
    detsim__world_end(cls, exit_status, node_extra);
  }
  detsim__write_result(cls, exit_status, extra_all);
  exit_now(cls == DETSIM_CLASS_pass ? exit_status : class_status[cls]);
}

_Noreturn void detsim__finish_as_world_ended(void) {
  in_signal = 1; /* this process's threads are parked, perhaps in stdio */
  if (__atomic_exchange_n(&finishing, 1, __ATOMIC_ACQ_REL)) {
    park_until_killed();
  }
  const struct detsim_world_shared *ws = detsim__ws;
  /* The history as the ending process published it (end_history is its
   * finalized hash, which the result line would finalize again). */
  detsim__history_set(ws->events, ws->hash);
  detsim__clock.now_ns = ws->end_now_ns;
  /* The process that ended it asked for the run's trace (its result line
   * names it): every process's part merged (the teardown removes any
   * part left). */
  /* A deadlock lists this process's blocked threads too (the others
   * listed theirs, asked for their parts). */
  if (ws->end_class == DETSIM_CLASS_deadlock) detsim__world_print_blocked();
  if (ws->trace_merge) detsim__world_trace_merge();
  detsim__proc_teardown();
  enum detsim_class cls = (enum detsim_class)ws->end_class;
  CHECK_LT((unsigned)cls, DETSIM_CLASS_COUNT);
  detsim__write_result(cls, ws->end_status, ws->end_extra);
  exit_now(cls == DETSIM_CLASS_pass ? ws->end_status : class_status[cls]);
}

/* ---- backtraces ---- */

static int backtrace_text(char *buf, int len, int skip_runtime);

/* True for an address inside this library: frames of the runtime itself are
 * left out of the backtraces users read. */
static int in_runtime(uintptr_t ip) {
  static void *self_base;
  Dl_info info;
  if (self_base == NULL && dladdr((void *)&in_runtime, &info)) self_base = info.dli_fbase;
  return dladdr((void *)ip, &info) && info.dli_fbase == self_base;
}

int detsim__backtrace_text(char *buf, int len, int skip_runtime) {
  /* libunwind takes locks and makes system calls: while it runs they are the
   * runtime's own, not events of the program. */
  detsim__internal_begin();
  detsim__msan_uninstrumented_begin();
  int n = backtrace_text(buf, len, skip_runtime);
  detsim__msan_uninstrumented_end();
  detsim__internal_end();
  return n;
}

/* libc's __restore_rt (mov $15,%rax; syscall): the frame a signal handler
 * returns through.  It is a local symbol, so it would be misnamed. */
static bool is_sigreturn_trampoline(uintptr_t ip) {
  static const unsigned char code[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
  Dl_info info;
  if (!dladdr((void *)ip, &info)) return false;
  return memcmp((const void *)ip, code, sizeof code) == 0;
}

static int backtrace_text(char *buf, int len, int skip_runtime) {
  unw_context_t ctx;
  unw_cursor_t cur;
  int used = 0;
  buf[0] = '\0';
  if (unw_getcontext(&ctx) != 0 || unw_init_local(&cur, &ctx) != 0) return 0;
  int frame = 0;
  while (frame < DETSIM_BACKTRACE_FRAMES_MAX && unw_step(&cur) > 0) {
    unw_word_t ip = 0, off = 0;
    unw_get_reg(&cur, UNW_REG_IP, &ip);
    detsim__msan_unpoison(&ip, sizeof ip); /* libunwind is not instrumented */
    if (skip_runtime && in_runtime((uintptr_t)ip)) continue;
    if (is_sigreturn_trampoline((uintptr_t)ip)) continue;
    char name[256] = "??";
    unw_get_proc_name(&cur, name, sizeof name, &off);
    detsim__msan_unpoison(name, sizeof name);
    detsim__msan_unpoison(&off, sizeof off);
    Dl_info info;
    const char *mod = "?";
    if (dladdr((void *)(uintptr_t)ip, &info) && info.dli_fname) {
      mod = strrchr(info.dli_fname, '/');
      mod = mod ? mod + 1 : info.dli_fname;
    }
    /* libc's own frames (raise inside abort above the program, the thread
     * start below it) have local symbols that would be misnamed after the
     * nearest exported one: leave them out. */
    if (!strncmp(mod, "libc.so", 7)) {
      if (frame > 0) break;
      continue;
    }
    int k = snprintf(buf + used, (size_t)(len - used), "#%d 0x%016" PRIxPTR " in %s+0x%" PRIxPTR " (%s)\n",
                     frame, (uintptr_t)ip, name, (uintptr_t)off, mod);
    if (k < 0 || k >= len - used) break;
    used += k;
    frame++;
    if (!strcmp(name, "main") || !strcmp(name, "start_thread")) break;
  }
  return used;
}

static void print_lines(const char *text) {
  const char *line = text;
  while (*line) {
    const char *nl = strchr(line, '\n');
    int n = nl ? (int)(nl - line) : (int)strlen(line);
    detsim__msg("    %.*s", n, line);
    if (!nl) break;
    line = nl + 1;
  }
}

/* ---- invariants of the runtime itself ---- */

_Noreturn void detsim__check_failed(const char *file, int line, const char *cond, uint64_t a, uint64_t b) {
  detsim__msg("internal error: invariant '%s' failed at %s:%d (values 0x%" PRIx64 ", 0x%" PRIx64
              ") seed=%" PRIu64 " event=%" PRIu64,
              cond, file, line, a, b, W.seed, detsim__events());
  char bt[4096];
  detsim__backtrace_text(bt, sizeof bt, 0);
  print_lines(bt);
  detsim__finish(DETSIM_CLASS_inconclusive, 0, "reason=detsim-internal-error");
}

/* ---- crashes ---- */

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };

static void crash_handler(int sig, siginfo_t *si, void *uctx) {
  (void)uctx;
  in_signal = 1;
  if (__atomic_load_n(&finishing, __ATOMIC_ACQUIRE)) {
    /* A crash while the run is being ended: the first verdict stands. */
    park_until_killed();
  }
  detsim_thread *self = detsim__self();
  char name[16];
  snprintf(name, sizeof name, "SIG%s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
  if (sig == SIGSEGV || sig == SIGBUS)
    detsim__msg("crash: %s (%s) at address %p in thread T%u", name, sigdescr_np(sig), si->si_addr,
                self ? self->id : 0);
  else
    detsim__msg("crash: %s (%s) in thread T%u", name, sigdescr_np(sig), self ? self->id : 0);
  char bt[4096];
  detsim__backtrace_text(bt, sizeof bt, 1);
  print_lines(bt);
  char extra[64];
  snprintf(extra, sizeof extra, "signal=%s", name);
  detsim__proc_ending_signal = sig; /* a forked child ends by it (world_proc.c) */
  detsim__finish(DETSIM_CLASS_crash, 0, extra);
}

/* Each simulated thread gets an alternate signal stack so a stack overflow
 * is still reported.  Sized for the handler's own buffers and libunwind. */
#define DETSIM_ALTSTACK_BYTES (256u << 10)

void detsim__altstack_install(void) {
  void *p = mmap(NULL, DETSIM_ALTSTACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return;
  stack_t ss = { .ss_sp = p, .ss_size = DETSIM_ALTSTACK_BYTES, .ss_flags = 0 };
  sigaltstack(&ss, NULL);
}

void detsim__report_install(void) {
  detsim__altstack_install();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = crash_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
    REAL(sigaction)(crash_signals[i], &sa, NULL);
}

/* ---- break_at ---- */

void detsim__break_now(uint64_t event) {
  detsim__msg("break at event %" PRIu64 ": process %d stopped; attach with: gdb -p %d   (then 'continue')",
              event, (int)REAL(getpid)(), (int)REAL(getpid)());
  REAL(kill)(REAL(getpid)(), SIGSTOP);
}
