/* How a run ends: the result line, the trace file, the exit status. */
#ifndef DETSIM_REPORT_H
#define DETSIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum detsim_class {
#define DETSIM_CLASS(name, status, desc) DETSIM_CLASS_##name,
#include "classes.inc"
#undef DETSIM_CLASS
  DETSIM_CLASS_COUNT
};

/* Bad DETSIM_SEED / DETSIM_OPTIONS: exits before the program runs. */
#define DETSIM_EXIT_USAGE 89

const char *detsim__class_name(enum detsim_class cls);

/* Ends the run: for a failure writes the trace file and prints its tail,
 * then the result line `detsim: <class> seed=… events=… history=… …`
 * (`extra` fields appended), flushes stdio and exits with the class's status
 * (the program's `exit_status` for pass).  Safe to call from any thread, a
 * signal handler included; the first caller wins. */
_Noreturn void detsim__finish(enum detsim_class cls, int exit_status, const char *extra);

/* The calling thread must not flush stdio when it ends the run (a signal
 * handler, the watchdog, _exit). */
void detsim__report_no_flush(void);
/* Whether some thread is ending the run already. */
bool detsim__report_finishing(void);

/* The result line without exiting, for an exit already under way. */
void detsim__write_result(enum detsim_class cls, int exit_status, const char *extra);

/* Formats `fmt` into a message line on stderr prefixed with "detsim: ". */
void detsim__msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Captures the calling thread's backtrace as text lines (frames inside the
 * runtime skipped).  Returns the length written. */
int detsim__backtrace_text(char *buf, int len, int skip_runtime);

/* The trace file's path (the `trace` option, or detsim-<seed>.trace), NULL
 * for trace=none. */
const char *detsim__trace_path(char *buf, size_t len);

/* Installs the crash handlers (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT)
 * and an alternate signal stack for the calling thread. */
void detsim__report_install(void);
void detsim__altstack_install(void);

#endif
