/* Linked into a simulation build with -fsanitize=thread (detsim-cc adds it):
 * ThreadSanitizer's defaults, which only the executable can define.
 *
 * A race report ends the run (halt_on_error), as an ASan report does, so
 * the run's class says it (`crash sanitizer=thread`) and its seed replays
 * it.  The runtime's own copies and allocations (uninstrumented, ordered
 * by the scheduler's hand-overs, which TSan does not see) are not the
 * program's accesses: TSan checks what instrumented code does
 * (ignore_noninstrumented_modules).  In the child of a fork TSan counts
 * as multi-threaded, the runtime's own threads must still start
 * (die_after_fork=0); the runtime refuses the program's threads there as
 * TSan would (runtime/sanitize/helper_threads.c).  At exit TSan waits
 * atexit_sleep_ms (a second) for threads still running to race; the
 * other threads of a simulation are parked (the runtime's, or simulated
 * ones that cannot run once the process ends), so it waits for nothing.
 * TSAN_OPTIONS still overrides these. */
const char *__tsan_default_options(void);

__attribute__((visibility("default"))) const char *__tsan_default_options(void) { return "halt_on_error=1:ignore_noninstrumented_modules=1:die_after_fork=0:atexit_sleep_ms=0"; }
