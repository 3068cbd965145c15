/* Linked into a simulation build with -fsanitize=thread (detsim-cc adds it):
 * ThreadSanitizer's defaults, which only the executable can define.
 *
 * A race report ends the run (halt_on_error), as an ASan report does, so
 * the run's class says it (`crash sanitizer=thread`) and its seed replays
 * it.  The runtime's own copies and allocations (uninstrumented, ordered
 * by the scheduler's hand-overs, which TSan does not see) are not the
 * program's accesses: TSan checks what instrumented code does
 * (ignore_noninstrumented_modules).  After a fork TSan counts multi-
 * threaded, the runtime's own threads of the child must start
 * (die_after_fork=0); the runtime refuses the program's threads there as
 * TSan would (runtime/sanitize/helper_threads.c).  TSAN_OPTIONS still
 * overrides these. */
const char *__tsan_default_options(void);

__attribute__((visibility("default"))) const char *__tsan_default_options(void) { return "halt_on_error=1:ignore_noninstrumented_modules=1:die_after_fork=0"; }
