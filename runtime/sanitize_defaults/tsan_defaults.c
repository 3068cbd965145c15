/* Linked into a simulation build with -fsanitize=thread (detsim-cc adds it):
 * ThreadSanitizer's defaults, which only the executable can define.
 *
 * A race report ends the run (halt_on_error), as an ASan report does, so
 * the run's class says it (`crash sanitizer=thread`) and its seed replays
 * it.  The runtime's own copies and allocations (uninstrumented, ordered
 * by the scheduler's hand-overs, which TSan does not see) are not the
 * program's accesses: TSan checks what instrumented code does
 * (ignore_noninstrumented_modules).  At exit TSan sleeps a second
 * (atexit_sleep_ms) while threads it knows are alive, so that they race
 * with the exit in real time; simulated threads run only when the schedule
 * picks them, never during that sleep, which was a second of wall time per
 * run and nothing else.  TSAN_OPTIONS still overrides these. */
const char *__tsan_default_options(void);

__attribute__((visibility("default"))) const char *__tsan_default_options(void) { return "halt_on_error=1:ignore_noninstrumented_modules=1:atexit_sleep_ms=0"; }
