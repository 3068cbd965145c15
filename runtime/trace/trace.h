/* History: the hash over every event, and the bounded trace of the last ones.
 *
 * Each event is folded into a 64-bit history hash (what replay compares) and
 * written to a ring of trace records (what a failure report shows).  Only
 * values that are the same in every process go into the hash: the event
 * kind, the thread id and small values the simulation chose (never
 * addresses, which differ between builds and runs).
 */
#ifndef DETSIM_TRACE_H
#define DETSIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "prng.h"
#include "world_abi.h" /* DETSIM_HISTORY_START */

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
/* Prints the last n records to fd. */
void detsim__trace_print_tail(int fd, unsigned n);
void detsim__trace_init(uint64_t capacity);

#endif
