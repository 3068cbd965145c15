/* Every limit of the runtime, in one place.
 *
 * Each limit is named with its unit, says why it has the value it has, and is
 * reported by name when a run hits it: a run that reaches a limit ends with a
 * message naming the limit and its value, never with memory corruption or a
 * hang.  Limits that users may lower or raise are also DETSIM_OPTIONS keys
 * (options.inc); the values here are then the defaults and the hard caps.
 */
#ifndef DETSIM_LIMITS_H
#define DETSIM_LIMITS_H

/* Simulated threads alive at once (the main thread included).  The scheduler
 * scans the live threads at each switch, and each thread holds a real stack:
 * a program needing more is better simulated with a smaller pool. */
#define DETSIM_MAX_THREADS 1024

/* Threads created over a whole run.  Thread ids in the trace are never
 * reused, and they are 16-bit in trace records. */
#define DETSIM_MAX_THREADS_CREATED 60000

/* Events (yield points, blocks, wakes, timers) in one run before it ends as
 * inconclusive: a livelock that keeps yielding would otherwise run forever.
 * 2^32 events are tens of minutes at the fastest yield rate. */
#define DETSIM_MAX_EVENTS_DEFAULT (1ull << 32)

/* Virtual time a run may reach (ns) before it ends as inconclusive: a
 * program sleeping in a loop forever would otherwise never end.  One
 * simulated year. */
#define DETSIM_MAX_SIM_TIME_NS_DEFAULT (365ull * 24 * 3600 * 1000000000ull)

/* Trace records kept in memory (a ring: the last N events are written to the
 * trace file on failure).  32 bytes each: 1 Mi records = 32 MiB. */
#define DETSIM_TRACE_EVENTS_DEFAULT (1u << 20)
#define DETSIM_TRACE_EVENTS_MAX (1u << 26)

/* Lines of the trace printed on stderr when a run fails. */
#define DETSIM_TRACE_TAIL_LINES 20

/* Frames kept in one backtrace. */
#define DETSIM_BACKTRACE_FRAMES_MAX 32

/* Real seconds without a single event before the watchdog ends the run as
 * inconclusive (a thread stuck in an unsimulated call or a plain spin loop). */
#define DETSIM_WATCHDOG_S_DEFAULT 10

/* Length of the command line echoed in the first line. */
#define DETSIM_CMDLINE_BYTES_MAX 4096

/* PCT: the most priority change points a run may ask for. */
#define DETSIM_PCT_DEPTH_MAX 64

/* Decisions a schedule plan holds (plan= and plan_out=): 16 bytes each, in
 * two lazily touched arrays of 16 MiB. */
#define DETSIM_PLAN_ENTRIES_MAX (1u << 20)

/* Size of a path option (trace file). */
#define DETSIM_PATH_BYTES_MAX 1024

_Static_assert(DETSIM_MAX_THREADS_CREATED < 65535, "thread ids are 16-bit in trace records");
_Static_assert(DETSIM_MAX_THREADS <= DETSIM_MAX_THREADS_CREATED, "live threads are a subset of created threads");
_Static_assert((DETSIM_TRACE_EVENTS_DEFAULT & (DETSIM_TRACE_EVENTS_DEFAULT - 1)) == 0, "the trace ring is a power of two");

#endif
