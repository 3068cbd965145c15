/* The sweep's totals: every seed's compact result, failures grouped by
 * signature, invariant counts, simulated time.  Records arrive in any order
 * (seeds finish out of order); simrun_stats_sort() puts results, signatures
 * and stored tails in seed-set order for the outputs, so a sweep's report
 * does not depend on timing. */
#include <stdlib.h>
#include <string.h>

#include "simrun.h"
#include "st_classes.h"
#include "st_limits.h"

struct sig {
  char *text;
  int cls;
  uint64_t count;
  uint64_t first_index, first_seed;
  int nshown;
  uint64_t shown_index[SIMRUN_REPORT_SEEDS_SHOWN], shown_seed[SIMRUN_REPORT_SEEDS_SHOWN];
  uint64_t fault_runs[SIMRUN_FAULT_KINDS_MAX]; /* its seeds that had each fault kind (S.faults' index) */
};

struct check {
  char *name;
  uint64_t total, runs;
};

struct point {
  int kind;
  char *name;
  uint64_t hits, evals, runs_hit, runs_known;
};

struct tail {
  uint64_t index;
  char *text;
};

static struct {
  struct simrun_result *results;
  uint64_t n, cap;
  uint64_t failed, sim_us;
  double cpu_s;
  uint64_t class_count[ST_CLASS_COUNT];
  struct sig sigs[SIMRUN_SIGNATURES_MAX + 1]; /* the last: "(other)" */
  int nsigs;
  struct check checks[SIMRUN_CHECK_NAMES_MAX + 1];
  int nchecks;
  struct check faults[SIMRUN_FAULT_KINDS_MAX];
  int nfaults;
  uint64_t fault_pass_runs[SIMRUN_FAULT_KINDS_MAX]; /* passing seeds that had each kind */
  struct point points[SIMRUN_POINTS_MAX + 1];
  int npoints;
  struct tail *tails;
  uint64_t ntails, tails_cap, tails_bytes;
  struct simrun_result first_failure;
  bool have_first_failure;
  char *first_tail;
  char *first_own;
} S;

void simrun_stats_init(uint64_t expected) {
  memset(&S, 0, sizeof S);
  S.cap = expected ? expected : 16;
  S.results = st_xmalloc(sizeof *S.results * S.cap);
}

static int find_sig(const char *text, int cls) {
  for (int i = 0; i < S.nsigs; i++)
    if (!strcmp(S.sigs[i].text, text)) return i;
  if (S.nsigs < SIMRUN_SIGNATURES_MAX) {
    S.sigs[S.nsigs].text = st_xstrdup(text);
    S.sigs[S.nsigs].cls = cls;
    S.sigs[S.nsigs].first_index = UINT64_MAX;
    return S.nsigs++;
  }
  /* Past the limit: one catch-all group, named as such. */
  struct sig *o = &S.sigs[SIMRUN_SIGNATURES_MAX];
  if (!o->text) {
    o->text = st_xstrdup("(other signatures: limit SIMRUN_SIGNATURES_MAX reached)");
    o->cls = cls;
    o->first_index = UINT64_MAX;
  }
  return SIMRUN_SIGNATURES_MAX;
}

static void sig_add(struct sig *g, uint64_t index, uint64_t seed) {
  g->count++;
  if (index < g->first_index) {
    g->first_index = index;
    g->first_seed = seed;
  }
  /* Keep the smallest indices, sorted. */
  int k = g->nshown;
  if (k == SIMRUN_REPORT_SEEDS_SHOWN) {
    if (index >= g->shown_index[k - 1]) return;
    k--;
  } else {
    g->nshown++;
  }
  while (k > 0 && g->shown_index[k - 1] > index) {
    g->shown_index[k] = g->shown_index[k - 1];
    g->shown_seed[k] = g->shown_seed[k - 1];
    k--;
  }
  g->shown_index[k] = index;
  g->shown_seed[k] = seed;
}

/* Fault kinds are a short fixed list (the runtime's); more are ignored only
 * past SIMRUN_FAULT_KINDS_MAX, which no runtime reaches.  Returns the
 * kind's index, or -1 when ignored. */
static int add_fault(const char *name, uint64_t count) {
  int i;
  for (i = 0; i < S.nfaults; i++)
    if (!strcmp(S.faults[i].name, name)) break;
  if (i == S.nfaults) {
    if (S.nfaults == SIMRUN_FAULT_KINDS_MAX) return -1;
    S.faults[S.nfaults++].name = st_xstrdup(name);
  }
  S.faults[i].total += count;
  S.faults[i].runs++;
  return i;
}

static void add_check(const char *name, uint64_t count) {
  int i;
  for (i = 0; i < S.nchecks; i++)
    if (!strcmp(S.checks[i].name, name)) break;
  if (i == S.nchecks) {
    if (S.nchecks == SIMRUN_CHECK_NAMES_MAX) {
      i = SIMRUN_CHECK_NAMES_MAX;
      if (!S.checks[i].name) S.checks[i].name = st_xstrdup("(other names: limit SIMRUN_CHECK_NAMES_MAX reached)");
    } else {
      S.checks[S.nchecks++].name = st_xstrdup(name);
    }
  }
  S.checks[i].total += count;
  S.checks[i].runs++;
}

static void add_point(const struct st_point *p) {
  int i;
  for (i = 0; i < S.npoints; i++)
    if (S.points[i].kind == p->kind && !strcmp(S.points[i].name, p->name)) break;
  if (i == S.npoints) {
    if (S.npoints == SIMRUN_POINTS_MAX) {
      i = SIMRUN_POINTS_MAX;
      if (!S.points[i].name) {
        S.points[i].name = st_xstrdup("(other points: limit SIMRUN_POINTS_MAX reached)");
        S.points[i].kind = p->kind;
      }
    } else {
      S.points[S.npoints].kind = p->kind;
      S.points[S.npoints++].name = st_xstrdup(p->name);
    }
  }
  S.points[i].hits += p->hits;
  S.points[i].evals += p->evals;
  S.points[i].runs_hit += p->hits > 0;
  S.points[i].runs_known++;
}

int simrun_stats_add(const struct simrun_record *rec) {
  if (S.n == S.cap) S.results = st_xrealloc(S.results, sizeof *S.results * (S.cap *= 2));
  struct simrun_result r = rec->r;
  r.sig = -1;
  if (r.cls >= 0 && r.cls < ST_CLASS_COUNT) S.class_count[r.cls]++;
  S.sim_us += r.sim_us;
  S.cpu_s += r.cpu_s;
  for (int i = 0; i < rec->nchecks; i++) add_check(rec->checks[i].name, rec->checks[i].count);
  /* The kinds this seed had, to set failing seeds' faults against the
   * passing seeds' (FAILURES BY FAULT). */
  int had[SIMRUN_FAULT_KINDS_MAX], nhad = 0;
  for (int i = 0; i < rec->nfaults; i++) {
    int k = add_fault(rec->faults[i].name, rec->faults[i].count);
    if (k >= 0 && rec->faults[i].count > 0 && nhad < SIMRUN_FAULT_KINDS_MAX) had[nhad++] = k;
  }
  for (int i = 0; i < rec->npoints; i++) add_point(&rec->points[i]);
  if (r.cls == ST_CLASS_pass)
    for (int i = 0; i < nhad; i++) S.fault_pass_runs[had[i]]++;
  if (r.cls != ST_CLASS_pass) {
    S.failed++;
    r.sig = find_sig(rec->signature ? rec->signature : st_class_name(r.cls), r.cls);
    sig_add(&S.sigs[r.sig], r.index, r.seed);
    for (int i = 0; i < nhad; i++) S.sigs[r.sig].fault_runs[had[i]]++;
    if (!S.have_first_failure || r.index < S.first_failure.index) {
      free(S.first_tail);
      S.first_tail = rec->tail ? st_xstrdup(rec->tail) : NULL;
      free(S.first_own);
      S.first_own = rec->own ? st_xstrdup(rec->own) : NULL;
      S.first_failure = r;
      S.have_first_failure = true;
    }
    if (rec->tail) {
      size_t len = strlen(rec->tail);
      if (S.tails_bytes + len <= SIMRUN_TAILS_BYTES_MAX) {
        if (S.ntails == S.tails_cap) S.tails = st_xrealloc(S.tails, sizeof *S.tails * (S.tails_cap = S.tails_cap ? S.tails_cap * 2 : 64));
        S.tails[S.ntails].index = r.index;
        S.tails[S.ntails++].text = st_xstrdup(rec->tail);
        S.tails_bytes += len;
      }
    }
  }
  S.results[S.n++] = r;
  return r.sig;
}

static int cmp_result(const void *a, const void *b) {
  const struct simrun_result *x = a, *y = b;
  return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_tail(const void *a, const void *b) {
  const struct tail *x = a, *y = b;
  return x->index < y->index ? -1 : x->index > y->index;
}

void simrun_stats_sort(void) {
  qsort(S.results, S.n, sizeof *S.results, cmp_result);
  qsort(S.tails, S.ntails, sizeof *S.tails, cmp_tail);
  /* Signatures by their first seed: renumber, and the results with them. */
  int n = S.nsigs + (S.sigs[SIMRUN_SIGNATURES_MAX].text ? 1 : 0);
  int order[SIMRUN_SIGNATURES_MAX + 1], rank[SIMRUN_SIGNATURES_MAX + 1];
  int k = 0;
  for (int i = 0; i < S.nsigs; i++) order[k++] = i;
  if (S.sigs[SIMRUN_SIGNATURES_MAX].text) order[k++] = SIMRUN_SIGNATURES_MAX;
  for (int i = 1; i < n; i++) /* insertion sort: n is small */
    for (int j = i; j > 0 && S.sigs[order[j]].first_index < S.sigs[order[j - 1]].first_index; j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  static struct sig sorted[SIMRUN_SIGNATURES_MAX + 1];
  for (int i = 0; i < n; i++) {
    sorted[i] = S.sigs[order[i]];
    rank[order[i]] = i;
  }
  memset(S.sigs, 0, sizeof S.sigs);
  memcpy(S.sigs, sorted, sizeof sorted[0] * (size_t)n);
  S.nsigs = n;
  for (uint64_t i = 0; i < S.n; i++)
    if (S.results[i].sig >= 0) S.results[i].sig = rank[S.results[i].sig];
  if (S.have_first_failure) S.first_failure.sig = rank[S.first_failure.sig];
}

struct simrun_result *simrun_stats_results(uint64_t *n) {
  *n = S.n;
  return S.results;
}
uint64_t simrun_stats_failed(void) { return S.failed; }
uint64_t simrun_stats_sim_us(void) { return S.sim_us; }
double simrun_stats_cpu_s(void) { return S.cpu_s; }
uint64_t simrun_stats_class_count(int cls) { return cls >= 0 && cls < ST_CLASS_COUNT ? S.class_count[cls] : 0; }
int simrun_stats_nsigs(void) { return S.nsigs; }
const char *simrun_stats_sig_text(int id) { return S.sigs[id].text; }
int simrun_stats_sig_class(int id) { return S.sigs[id].cls; }
uint64_t simrun_stats_sig_count(int id) { return S.sigs[id].count; }
uint64_t simrun_stats_sig_first_seed(int id) { return S.sigs[id].first_seed; }
uint64_t simrun_stats_sig_first_index(int id) { return S.sigs[id].first_index; }

int simrun_stats_sig_seeds(int id, uint64_t *seeds, int max) {
  int n = S.sigs[id].nshown < max ? S.sigs[id].nshown : max;
  for (int i = 0; i < n; i++) seeds[i] = S.sigs[id].shown_seed[i];
  return n;
}

const char *simrun_stats_tail(uint64_t index) {
  uint64_t lo = 0, hi = S.ntails;
  while (lo < hi) {
    uint64_t mid = (lo + hi) / 2;
    if (S.tails[mid].index < index) lo = mid + 1;
    else hi = mid;
  }
  return lo < S.ntails && S.tails[lo].index == index ? S.tails[lo].text : NULL;
}

const struct simrun_result *simrun_stats_first_failure(void) { return S.have_first_failure ? &S.first_failure : NULL; }
const char *simrun_stats_first_tail(void) { return S.first_tail; }
const char *simrun_stats_first_own(void) { return S.first_own; }

int simrun_stats_nchecks(void) { return S.nchecks + (S.checks[SIMRUN_CHECK_NAMES_MAX].name ? 1 : 0); }

void simrun_stats_check(int i, const char **name, uint64_t *total, uint64_t *runs) {
  if (i >= S.nchecks) i = SIMRUN_CHECK_NAMES_MAX;
  *name = S.checks[i].name;
  *total = S.checks[i].total;
  *runs = S.checks[i].runs;
}

int simrun_stats_nfaults(void) { return S.nfaults; }

void simrun_stats_fault(int i, const char **name, uint64_t *total, uint64_t *runs) {
  *name = S.faults[i].name;
  *total = S.faults[i].total;
  *runs = S.faults[i].runs;
}

uint64_t simrun_stats_sig_fault_runs(int id, int k) { return S.sigs[id].fault_runs[k]; }
uint64_t simrun_stats_fault_pass_runs(int k) { return S.fault_pass_runs[k]; }

int simrun_stats_npoints(void) { return S.npoints + (S.points[SIMRUN_POINTS_MAX].name ? 1 : 0); }

void simrun_stats_point(int i, int *kind, const char **name, uint64_t *hits, uint64_t *evals, uint64_t *runs_hit,
                        uint64_t *runs_known) {
  if (i >= S.npoints) i = SIMRUN_POINTS_MAX;
  const struct point *p = &S.points[i];
  *kind = p->kind;
  *name = p->name;
  *hits = p->hits;
  *evals = p->evals;
  *runs_hit = p->runs_hit;
  *runs_known = p->runs_known;
}

int simrun_stats_points_missed(void) {
  int n = 0;
  for (int i = 0; i < simrun_stats_npoints(); i++) {
    const struct point *p = &S.points[i < S.npoints ? i : SIMRUN_POINTS_MAX];
    n += p->kind != ST_POINT_UNREACHABLE && p->hits == 0;
  }
  return n;
}
