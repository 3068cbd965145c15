/* A node's part of a world's trace, as written (runtime/world/world_trace.c) and
 * read (tools/simworld/trace_merge.c): raw records, so that a node leaving
 * the world pays for a copy, not for formatting lines nobody may read.
 *
 *   struct detsim_part_header
 *   n_sites  x { uint64_t pc; uint32_t len; char text[len] }   call sites, " at func+off"
 *   n_records x struct detsim_part_record                       in event order
 */
#ifndef DETSIM_WORLD_TRACE_PART_H
#define DETSIM_WORLD_TRACE_PART_H

#include <inttypes.h>
#include <stdint.h>

/* One event as a line of a trace file, written by the runtime (trace.c)
 * and by simworld's merge of a world's parts: number, seconds and
 * nanoseconds, thread, node ("" or "@name"), kind, object, value, then the
 * site as a counted string (" at func+off" or empty). */
#define DETSIM_TRACE_LINE_FORMAT "%10" PRIu64 " t=%" PRIu64 ".%09" PRIu64 " T%u%s %-14s obj=0x%" PRIx64 " val=%u%.*s\n"

/* A trace file's first line: the events it holds (A..B of M), whether the
 * ring (trace_events=K) dropped older ones, and K.  tools/common/st_trace.c
 * reads it back. */
#define DETSIM_TRACE_HEADER_FORMAT "# detsim trace: events %" PRIu64 "..%" PRIu64 " of %" PRIu64 " (%s: trace_events=%" PRIu64 ")\n"
#define DETSIM_TRACE_HEADER_DROPPED(first) ((first) > 0 ? "older events dropped" : "none dropped")

#define DETSIM_PART_MAGIC "DSTPART1"
/* Distinct call sites a part names; records at other sites show none. */
#define DETSIM_PART_SITES_MAX 4096

struct detsim_part_header {
  char magic[8];
  uint64_t ring;       /* the node's trace_events */
  uint32_t n_sites, n_records;
};

struct detsim_part_record {
  uint64_t n;          /* the event's number in the world's history */
  uint64_t time_ns, obj, pc;
  uint32_t aux;
  uint16_t tid;
  uint8_t kind, pad;
};

#endif
