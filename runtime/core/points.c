/* Coverage points: DETSIM_SOMETIMES, DETSIM_REACHABLE, DETSIM_UNREACHABLE
 * (include/detsim.h).
 *
 * Each use of a macro is a descriptor in section detsim_points of its
 * module; the header's constructor registers the module's section, so a
 * run knows every point, reached or not.  The counts live in the
 * descriptors.  Before the result line the run writes one line per point
 * (kind and name, duplicates summed):
 *
 *   detsim: point sometimes=HITS/EVALS NAME
 *   detsim: point reachable=HITS NAME
 *   detsim: point unreachable=HITS NAME
 *
 * In a world, the points of every node are also kept in the shared header
 * (a node may be killed before it could report), registered unreached
 * when the node's program starts, and simworld writes the same lines for
 * the world.  Reaching an UNREACHABLE point ends the run as `correctness`
 * with unreachable=NAME.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define __DETSIM__ 1
#define DETSIM_RUNTIME_INTERNAL_ 1
#include "include/detsim.h"
#include "limits.h"
#include "intercept/intercept.h"
#include "core/core.h"
#include "sched/sched.h"
#include "trace/trace.h"
#include "world/world.h"

static struct {
  struct detsim_point *start, *stop;
  bool in_world; /* its points are in the world's table */
} sections[DETSIM_POINT_MODULES_MAX];
static unsigned n_sections;
static bool sections_full_warned, name_cut_warned;

static const char *kind_name(uint32_t kind) {
  switch (kind) {
  case DETSIM_POINT_SOMETIMES: return "sometimes";
  case DETSIM_POINT_REACHABLE: return "reachable";
  case DETSIM_POINT_UNREACHABLE: return "unreachable";
  default: return NULL;
  }
}

/* The world's entry of point p (created with zero counts), or NULL past
 * DETSIM_WORLD_POINTS_MAX.  Only a node holding the world calls it. */
static struct detsim_world_point *world_entry(const struct detsim_point *p) {
  struct detsim_world_shared *w = detsim__ws;
  char name[DETSIM_WORLD_POINT_NAME_BYTES];
  if (snprintf(name, sizeof name, "%s", p->name) >= (int)sizeof name && !name_cut_warned) {
    name_cut_warned = true;
    detsim__msg("warning: coverage point name '%s' is longer than %d bytes (DETSIM_WORLD_POINT_NAME_BYTES): the world "
                "reports it cut",
                p->name, DETSIM_WORLD_POINT_NAME_BYTES - 1);
  }
  for (unsigned i = 0; i < w->n_points && i < DETSIM_WORLD_POINTS_MAX; i++)
    if (w->points[i].kind == p->kind && !strcmp(w->points[i].name, name)) return &w->points[i];
  if (w->n_points >= DETSIM_WORLD_POINTS_MAX) {
    if (w->points_dropped++ == 0)
      detsim__msg("warning: more than %d coverage points in the world (DETSIM_WORLD_POINTS_MAX): '%s' and later ones "
                  "are not reported",
                  DETSIM_WORLD_POINTS_MAX, p->name);
    return NULL;
  }
  struct detsim_world_point *e = &w->points[w->n_points++];
  memset(e, 0, sizeof *e);
  memcpy(e->name, name, sizeof name);
  e->kind = p->kind;
  return e;
}

/* A node's program holds the world while its constructors run (the
 * runtime's own constructor parks until the world comes): its points go
 * into the world's table then, reached or not. */
static void world_register(unsigned s) {
  if (!detsim__world_hosts() || sections[s].in_world || detsim__self() == NULL) return;
  sections[s].in_world = true;
  for (struct detsim_point *p = sections[s].start; p < sections[s].stop; p++)
    if (kind_name(p->kind)) world_entry(p);
}

static bool add_section(struct detsim_point *start, struct detsim_point *stop) {
  for (unsigned i = 0; i < n_sections; i++)
    if (sections[i].start <= start && stop <= sections[i].stop) return true;
  if (n_sections == DETSIM_POINT_MODULES_MAX) {
    if (!sections_full_warned)
      detsim__msg("warning: more than %d sections of coverage points (DETSIM_POINT_MODULES_MAX): '%s' and the points "
                  "of later modules are not reported",
                  DETSIM_POINT_MODULES_MAX, start->name);
    sections_full_warned = true;
    return false;
  }
  /* A module's section replaces the points of it registered alone. */
  unsigned k = 0;
  for (unsigned i = 0; i < n_sections; i++)
    if (!(start <= sections[i].start && sections[i].stop <= stop)) sections[k++] = sections[i];
  n_sections = k;
  sections[n_sections].start = start;
  sections[n_sections].stop = stop;
  sections[n_sections].in_world = false;
  world_register(n_sections++);
  return true;
}

DETSIM_EXPORT void detsim_points_register(struct detsim_point *start, struct detsim_point *stop) {
  if (start && stop && start < stop) add_section(start, stop);
}

static void unreachable_reached(const struct detsim_point *p) {
  detsim_thread *self = detsim__self();
  detsim__msg("correctness: unreachable point '%s' reached at %s:%u in thread T%u", p->name, p->file, p->line,
              self ? detsim__thread_id(self) : 0);
  char bt[4096];
  detsim__backtrace_text(bt, sizeof bt, 1);
  for (char *l = bt; *l;) {
    char *nl = strchr(l, '\n');
    if (nl) *nl = '\0';
    detsim__msg("    %s", l);
    if (!nl) break;
    l = nl + 1;
  }
  char extra[256];
  size_t k = (size_t)snprintf(extra, sizeof extra, "unreachable=");
  for (const char *c = p->name; *c && k < sizeof extra - 1; c++) extra[k++] = (*c == ' ' || *c == '=' || *c == '\n') ? '_' : *c;
  extra[k] = '\0';
  detsim__finish(DETSIM_CLASS_correctness, 0, extra);
}

DETSIM_EXPORT void detsim_point_hit(struct detsim_point *p, int cond) {
  /* As DETSIM_CHECK: only the simulation's threads count (not a forked
   * child that left it, nor a thread outside it). */
  if (detsim__self() == NULL || !kind_name(p->kind)) return;
  if (p->evals == 0) add_section(p, p + 1); /* reached before its module registered? */
  p->evals++;
  if (cond) p->hits++;
  if (detsim__world_hosts()) {
    for (unsigned i = 0; i < n_sections; i++) world_register(i);
    struct detsim_world_point *e = world_entry(p);
    if (e) {
      e->evals++;
      if (cond) e->hits++;
    }
  }
  if (p->kind == DETSIM_POINT_UNREACHABLE) {
    detsim__event(DETSIM_EV_point, detsim__self(), NULL, (uintptr_t)__builtin_return_address(0), 1);
    unreachable_reached(p);
  }
  detsim__yield_aux(DETSIM_EV_point, NULL, (uintptr_t)__builtin_return_address(0), cond ? 1 : 0);
}

/* One "detsim: point" line (the format above); also simworld's. */
static void write_point(uint32_t kind, const char *name, uint64_t hits, uint64_t evals) {
  char line[512];
  int k = kind == DETSIM_POINT_SOMETIMES
              ? snprintf(line, sizeof line, "detsim: point %s=%" PRIu64 "/%" PRIu64 " ", kind_name(kind), hits, evals)
              : snprintf(line, sizeof line, "detsim: point %s=%" PRIu64 " ", kind_name(kind), hits);
  for (const char *c = name; *c && k < (int)sizeof line - 2; c++) line[k++] = (*c == '\n' || *c == '\r') ? ' ' : *c;
  line[k++] = '\n';
  ssize_t r = write(2, line, (size_t)k);
  (void)r;
}

/* Points with the same kind and name are one: the first of them prints
 * the sum.  (Sections do not overlap: add_section keeps them apart.) */
static bool same_point(const struct detsim_point *a, const struct detsim_point *b) {
  return a->kind == b->kind && !strcmp(a->name, b->name);
}

static bool printed_before(unsigned s, const struct detsim_point *p) {
  for (unsigned t = 0; t <= s; t++)
    for (const struct detsim_point *q = sections[t].start; q < sections[t].stop; q++) {
      if (q == p) return false;
      if (same_point(q, p)) return true;
    }
  return false;
}

void detsim__report_points(void) {
  for (unsigned s = 0; s < n_sections; s++)
    for (const struct detsim_point *p = sections[s].start; p < sections[s].stop; p++) {
      if (!kind_name(p->kind) || printed_before(s, p)) continue;
      uint64_t hits = 0, evals = 0;
      for (unsigned t = 0; t < n_sections; t++)
        for (const struct detsim_point *q = sections[t].start; q < sections[t].stop; q++)
          if (same_point(q, p)) {
            hits += q->hits;
            evals += q->evals;
          }
      write_point(p->kind, p->name, hits, evals);
    }
}
