/* Every limit of simrun and simreplay, in one place.
 *
 * Each is named with its unit and says why it has its value.  A run or an
 * input that reaches a limit is reported by the limit's name, never cut
 * silently (the exception is captured output, whose cut is counted and
 * said in the report).
 */
#ifndef ST_LIMITS_H
#define ST_LIMITS_H

/* A run's stderr is captured through a pipe, keeping the first
 * ST_CAPTURE_HEAD_BYTES (the runtime's first line, early warnings) and the
 * last ST_CAPTURE_TAIL_BYTES (backtraces, the trace tail, the `checked` and
 * result lines, which the runtime writes last).  Bytes in between are
 * counted and dropped, so a chatty program costs no memory: 320 KiB per
 * running seed at most. */
#define ST_CAPTURE_HEAD_BYTES (64u * 1024)
#define ST_CAPTURE_TAIL_BYTES (256u * 1024)
/* A run's stdout is only drained (the report does not use it), keeping the
 * first bytes for messages. */
#define ST_STDOUT_KEEP_BYTES (4u * 1024)

/* One line of text the tools parse (result lines, pasted lines, trace
 * lines): the runtime's own lines are under 5 KiB (the first line carries
 * at most 4 KiB of command line). */
#define ST_LINE_BYTES_MAX 8192

/* Arguments of the program under test that the tools pass on. */
#define ST_ARGS_MAX 4096

/* After a run's main process has ended, how long its pipes may stay open
 * (a grandchild outside its process group) before they are closed anyway. */
#define ST_DRAIN_MS 2000

/* A run stopped at its timeout gets SIGTERM first and this long to write
 * its result line (the runtime ends at once, at the next event or after
 * half a second when a thread is stuck in the kernel) before SIGKILL. */
#define ST_TERM_GRACE_MS 3000

/* simrun: parallel workers.  Each holds two pipes and a process; beyond a
 * few hundred the machine, not simrun, is the bottleneck. */
#define SIMRUN_JOBS_MAX 512

/* simrun: seeds one invocation runs.  Each seed keeps a 64-byte result in
 * memory for the report and JUnit (256 MiB at the limit); a larger sweep is
 * split with --shard I/N over several invocations or machines. */
#define SIMRUN_SEEDS_MAX (1u << 22)

/* simrun: per-seed wall-clock bound when --timeout is not given.  The
 * runtime's own watchdog (10 s without an event) ends most stuck runs; this
 * bounds a livelock that keeps producing events. */
#define SIMRUN_TIMEOUT_S_DEFAULT 600

/* simrun: distinct failure signatures and invariant names kept; beyond
 * these, failures count under the signature "(other)" and checks under
 * "(other)". */
#define SIMRUN_SIGNATURES_MAX 1024
#define SIMRUN_CHECK_NAMES_MAX 1024
/* Coverage points (kind and name) a report lists; past it, one "(other)". */
#define SIMRUN_POINTS_MAX 1024
/* Fault kinds counted in a report (the runtime has six). */
#define SIMRUN_FAULT_KINDS_MAX 32

/* simrun: seeds listed per failure signature in the report (all of them are
 * in the JSON lines). */
#define SIMRUN_REPORT_SEEDS_SHOWN 5
/* simrun: fault kinds listed with their counts per failure signature in
 * FAILURES BY FAULT (the most over-represented among its failing seeds
 * first; the rest are named on one line). */
#define SIMRUN_REPORT_FAULT_KINDS_SHOWN 8
/* simrun: lines of the first failure's stderr shown in the report, and
 * stored per failure for the JSON lines, JUnit and the report. */
#define SIMRUN_STDERR_TAIL_LINES 10
/* A failing run's own lines (its stderr not from detsim: the program's
 * messages, which a trace tail would hide) that simworld prints of the
 * failing node and simrun keeps and shows of the first failure. */
#define ST_OWN_LINES 10
/* simrun: bytes of stderr tails kept in memory over the whole sweep (for
 * JUnit, written at the end); failures beyond it carry no tail there. */
#define SIMRUN_TAILS_BYTES_MAX (16u * 1024 * 1024)

/* simreplay: processes one --repeat may start. */
#define SIMREPLAY_REPEAT_MAX 10000
/* The runtime's own bounds on trace_events (runtime/limits.h): simreplay asks
 * for a ring large enough to hold the whole run when it knows its length. */
#define ST_TRACE_EVENTS_MIN 16
#define ST_TRACE_EVENTS_MAX (1u << 26)
/* simreplay: bytes of one trace file read (a full 2^26-event trace is about
 * 7 GiB of text: compare shorter runs or raise this). */
#define SIMREPLAY_TRACE_BYTES_MAX (2048ull * 1024 * 1024)

/* Bytes of a schedule plan file read: the runtime holds at most 2^20
 * entries (runtime/limits.h DETSIM_PLAN_ENTRIES_MAX), about 30 bytes each. */
#define ST_PLAN_BYTES_MAX (64ull * 1024 * 1024)
/* simreplay --shrink: runs of the program one shrink may take (--shrink-runs
 * N overrides), so a long failing run cannot keep it going for days. */
#define SIMREPLAY_SHRINK_RUNS_DEFAULT 2000
#define SIMREPLAY_SHRINK_RUNS_MAX 1000000

/* Scenario files (st_scenario.h): a hand-written cluster description is a
 * few dozen short lines; these bounds only stop a wrong file (a binary, a
 * log) from being read whole or parsed line by line. */
#define ST_SCENARIO_FILE_BYTES_MAX (1024u * 1024)
#define ST_SCENARIO_LINE_BYTES_MAX 4096u
/* option and env directives per scenario. */
#define ST_SCENARIO_SETTINGS_MAX 256u

_Static_assert(ST_CAPTURE_TAIL_BYTES >= 4 * ST_LINE_BYTES_MAX, "the tail holds the last lines whole");
_Static_assert(SIMRUN_SEEDS_MAX < (1u << 31), "seed indexes fit an int");

#endif
