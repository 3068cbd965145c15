/* trace/: the one header of the runtime's trace part; other parts
 * include this and nothing else of the folder. */
#ifndef DETSIM_TRACE_PART_H
#define DETSIM_TRACE_PART_H

/* What the program writes out of the simulation (output.c).
 *
 * Every write of the program to a real descriptor (stdout, stderr, a file),
 * by write, writev, dprintf or stdio, is an `output` event whose value is a
 * hash of its bytes, and goes into the run's output digest (`output=` on the
 * result line).  So a replay that prints something else diverges, and
 * simreplay names the first write that differs, with its call site.
 */

#include <stddef.h>
#include <stdint.h>

/* n bytes the program wrote to real descriptor fd, from call site pc (0:
 * find the program's frame, for writes that stdio made on its behalf).
 * Writes of the runtime itself, of libraries it calls, from threads outside
 * the simulation, and under suppression (DETSIM_VERIFY) do not count. */
void detsim__output(int fd, const void *buf, size_t n, uintptr_t pc);
/* The same for the first n bytes of a writev's iovecs (one event). */
struct iovec;
void detsim__output_iov(int fd, const struct iovec *iov, int iovcnt, size_t n, uintptr_t pc);
/* The digest of everything counted so far. */
uint64_t detsim__output_digest(void);
/* The call site of the program's innermost frame outside libc and the
 * runtime (0 when none is found). */
uintptr_t detsim__program_pc(void);
/* True for an address inside the runtime library itself. */
int detsim__pc_in_runtime(uintptr_t pc);

/* Schedule plans: a run's scheduling decisions as data.
 *
 * A plan lists only the decisions that differ from the plan strategy's
 * default: at a yield point, keep running the current thread; when some
 * thread must be picked, the first runnable one in slot order; when one
 * waiter of several is woken, the first.  Each entry names where the
 * decision is taken, as the deciding thread and its own event count (its
 * step), its kind and the thread it chose.  A thread's steps are a property
 * of its own code path, so dropping another decision from a plan leaves
 * this one where it was; global event numbers would all shift.
 *
 * DETSIM_OPTIONS=plan_out=FILE records the decisions of any run (random
 * walk, PCT or a plan) and writes them when it ends; DETSIM_OPTIONS=plan=FILE
 * replays one.  Replaying the whole recorded plan takes the recorded
 * history; replaying a subset of it is still a well-defined run, which is
 * what simreplay --shrink searches (entries whose decision point no longer
 * comes, or whose thread cannot run there, are passed over).
 *
 * The file (text, line-oriented; '#' lines are comments for people and tools):
 *   # detsim plan 1
 *   seed N
 *   switch T STEP U          at thread T's event number STEP, run thread U
 *   wake T STEP U            at thread T's step STEP, wake thread U of the
 *                            waiters (thread ids as in the trace)
 *   end COUNT                the number of entries: a truncated file is refused
 * A '#' after an entry starts a comment (the runtime notes the global event
 * number there).
 *
 * A run whose processes fork (docs/processes.md) names threads across
 * processes as PID:T, the process's virtual pid and the thread's id in it
 * (a plain T is a thread of the run's first process, pid 1000).  PID:0 as
 * the deciding thread is the process's dispatcher (the choice it makes
 * when the world comes to it, its step its count of such choices); as the
 * chosen one it is the process itself, whose dispatcher then picks.  The
 * default of a choice in such a world is the first runnable thread of the
 * deciding process, else the first other process that may run.  A plan
 * naming a process the run never had is an error at the run's end.
 * An exec gives the process a new image, whose threads start at T1 and
 * step 0 again: its decisions name the deciding thread PID.I:T, I the
 * process's count of execs (a chosen thread is always of the image that
 * runs at that moment, so it keeps PID:T).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum detsim_plan_kind { DETSIM_PLAN_SWITCH = 0, DETSIM_PLAN_WAKE = 1 };

/* Loads DETSIM_OPTIONS plan=; on a bad file writes the reason to err and
 * returns -1 (the run has not started). */
int detsim__plan_load(const char *path, uint64_t seed, char *err, size_t errlen);
/* A plan is being replayed (the plan strategy). */
extern bool detsim__plan_replaying;
/* The thread id the plan chose at this decision point of thread `thread`
 * (of this process) at its step `step`, or 0 for the default (or a thread
 * of another process). */
uint32_t detsim__plan_take(uint32_t thread, uint64_t step, enum detsim_plan_kind kind);
/* The same for a choice that may name another process: true with the
 * chosen process's pid and thread (0: the process) when the plan has one. */
bool detsim__plan_take_any(uint32_t thread, uint64_t step, enum detsim_plan_kind kind, int32_t *pid,
                           uint32_t *chosen);
/* Records a decision that differs from the default (when plan_out is set). */
void detsim__plan_record(uint32_t thread, uint64_t step, enum detsim_plan_kind kind, uint32_t chosen);
/* The same for a choice of another process's thread (0: the process). */
void detsim__plan_record_any(uint32_t thread, uint64_t step, enum detsim_plan_kind kind, int32_t pid,
                             uint32_t chosen);
/* Recording or replaying a plan (the world's choices then keep to it). */
bool detsim__plan_on(void);
/* A run's own world (its first fork): the recorded decisions and the
 * processes the replayed plan names move to the world's region, which
 * every process of the run writes. */
void detsim__plan_share(void);
/* A new image (after an exec) in the world: the record and the processes
 * seen are the world's, in its region. */
void detsim__plan_attach_world(void);
/* Process `pid` was made (a fork, holding the world): a plan naming it
 * names a process of the run. */
void detsim__plan_process_made(int32_t pid);
/* At the run's end, replaying: a plan naming a process the run never had
 * is an error (exit status 89, naming it). */
void detsim__plan_check_processes(void);
/* Writes plan_out (once; signal-safe: write(2) only). */
void detsim__plan_write_out(const char *class_name, uint64_t events, uint64_t history);

/* History: the hash over every event, and the bounded trace of the last ones.
 *
 * Each event is folded into a 64-bit history hash (what replay compares) and
 * written to a ring of trace records (what a failure report shows).  Only
 * values that are the same in every process go into the hash: the event
 * kind, the thread id and small values the simulation chose (never
 * addresses, which differ between builds and runs).
 */

#include <stdbool.h>
#include <stdint.h>

#include "core/core.h"
#include "world_abi.h"

enum detsim_event_kind {
#define DETSIM_EVENT(name, desc) DETSIM_EV_##name,
#include "events.inc"
#undef DETSIM_EVENT
  DETSIM_EV_COUNT
};

struct detsim_trace_record {
  uint64_t time_ns;   /* virtual time */
  uint64_t obj;       /* the object (address), for the reader only */
  uint64_t pc;        /* the call site, for the reader only */
  uint32_t aux;       /* a small simulated value (folded into the hash) */
  uint16_t tid;
  uint8_t kind;
  uint8_t pad;        /* which lap of the ring wrote it (trace.c) */
};
_Static_assert(sizeof(struct detsim_trace_record) == 32, "trace records are 32 bytes");

/* The ring and the history (trace.c owns them; inline here because every
 * yield point records an event). */
struct detsim_trace_state {
  struct detsim_trace_record *ring;
  uint64_t mask;
  uint64_t events;
  uint64_t hash;
  unsigned shift;      /* log2 of the ring's size */
};
extern struct detsim_trace_state detsim__trace;

/* The clock stamps each event; time/ itself needs the event kinds above. */
#include "time/time.h"

/* Which lap of the ring event n is written in (never 0): a record's pad.
 * In a world a node records only its own events, so a slot may hold an
 * older lap's record or none, and readers skip what the mark does not
 * vouch for. */
static inline uint8_t detsim__trace_lap(uint64_t n) {
  return (uint8_t)(1u | ((n >> detsim__trace.shift) << 1));
}
/* Event n is in the ring, written by this process. */
static inline bool detsim__trace_holds(uint64_t n) {
  return detsim__trace.ring[n & detsim__trace.mask].pad == detsim__trace_lap(n);
}
/* The oldest event the ring can still hold. */
static inline uint64_t detsim__trace_first_kept(void) {
  const struct detsim_trace_state *t = &detsim__trace;
  return t->events > t->mask + 1 ? t->events - (t->mask + 1) : 0;
}

/* Records an event by thread `tid`; returns the event number. */
static inline uint64_t detsim__trace_event(enum detsim_event_kind kind, uint32_t tid, const void *obj,
                                           uintptr_t pc, uint32_t aux) {
  struct detsim_trace_state *t = &detsim__trace;
  uint64_t n = t->events++;
  uint64_t x = (uint64_t)kind | ((uint64_t)tid << 8) | ((uint64_t)aux << 32);
  t->hash = (detsim__rotl64(t->hash, 23) ^ x) * 0x9e3779b97f4a7c15ull;
  struct detsim_trace_record *r = &t->ring[n & t->mask];
  r->time_ns = detsim__now_ns();
  r->obj = (uint64_t)(uintptr_t)obj;
  r->pc = pc;
  r->aux = aux;
  r->tid = (uint16_t)tid;
  r->kind = (uint8_t)kind;
  r->pad = detsim__trace_lap(n);
  return n;
}
const char *detsim__event_name(enum detsim_event_kind kind);
/* " at func+offset" for a call site (cached), "" for none. */
const char *detsim__site_text(uintptr_t pc);
uint64_t detsim__history_hash(void);
uint64_t detsim__events(void);
/* The unfinalized history (a world carries it from node to node). */
void detsim__history_get(uint64_t *events, uint64_t *hash);
void detsim__history_set(uint64_t events, uint64_t hash);

/* Writes the kept records to `path` (one line each). 0 or -1. */
int detsim__trace_write(const char *path);
/* The lines that make a trace self-describing ("# seed=...", "# replay:
 * ..."), for a trace written elsewhere (a run's merged one). */
void detsim__trace_write_identity(int fd);
/* Prints the last n records to fd. */
void detsim__trace_print_tail(int fd, unsigned n);
void detsim__trace_init(uint64_t capacity);

#endif /* DETSIM_TRACE_PART_H */
