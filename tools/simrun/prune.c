/* What failing seeds leave on disk, bounded: a failing run writes its
 * trace (detsim-<seed>.trace) and a failing world also keeps its nodes'
 * logs (simworld-<seed>-XXXXXX in TMPDIR).  A sweep keeps those of the
 * --keep lowest seeds of each signature (by their position in the seed
 * set, so what is kept does not depend on -j) and deletes the others as
 * soon as a lower seed of the same signature displaces them; the report
 * says how many were pruned and names what is kept.
 *
 * Only what a run made is deleted: a trace path ending in ".trace", and a
 * log directory named simworld-<digits>-... (not a user's simworld --logs
 * DIR).  --merge prunes nothing.
 */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simrun.h"

struct kept {
  uint64_t index;
  char *trace, *logs;
};

struct per_sig {
  char *signature;
  struct kept *kept; /* sorted by index, at most keep (unless -1) */
  int n, cap;
};

static struct {
  int keep; /* per signature; -1: all */
  struct per_sig *sigs;
  int nsigs, cap;
  uint64_t pruned; /* seeds whose files were deleted */
} P = { .keep = SIMRUN_KEEP_DEFAULT };

void simrun_prune_init(int keep) { P.keep = keep; }

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

static bool is_world_log_dir(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strncmp(base, "simworld-", 9)) return false;
  size_t digits = strspn(base + 9, "0123456789");
  return digits > 0 && base[9 + digits] == '-';
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

static void delete_files(struct kept *k) {
  if (k->trace && ends_with(k->trace, ".trace")) unlink(k->trace);
  if (k->logs && is_world_log_dir(k->logs)) nftw(k->logs, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(k->trace);
  free(k->logs);
  k->trace = k->logs = NULL;
}

void simrun_prune_note(const char *signature, uint64_t index, const char *trace, const char *logs) {
  if (!trace && !logs) return;
  struct per_sig *g = NULL;
  for (int i = 0; i < P.nsigs && !g; i++)
    if (!strcmp(P.sigs[i].signature, signature)) g = &P.sigs[i];
  if (!g) {
    if (P.nsigs == P.cap) P.sigs = st_xrealloc(P.sigs, sizeof *P.sigs * (size_t)(P.cap = P.cap ? P.cap * 2 : 16));
    g = &P.sigs[P.nsigs++];
    g->signature = st_xstrdup(signature);
    g->kept = NULL;
    g->n = g->cap = 0;
  }
  if (g->n == g->cap) g->kept = st_xrealloc(g->kept, sizeof *g->kept * (size_t)(g->cap = g->cap ? g->cap * 2 : 4));
  struct kept k = { index, trace ? st_xstrdup(trace) : NULL, logs ? st_xstrdup(logs) : NULL };
  /* Insert in index order; what falls past `keep` is deleted. */
  int pos = g->n;
  while (pos > 0 && g->kept[pos - 1].index > index) {
    g->kept[pos] = g->kept[pos - 1];
    pos--;
  }
  g->kept[pos] = k;
  g->n++;
  if (P.keep >= 0 && g->n > P.keep) {
    delete_files(&g->kept[--g->n]);
    P.pruned++;
  }
}

uint64_t simrun_prune_count(void) { return P.pruned; }
int simrun_prune_keep(void) { return P.keep; }

bool simrun_prune_kept(uint64_t index, const char **trace, const char **logs) {
  for (int i = 0; i < P.nsigs; i++)
    for (int j = 0; j < P.sigs[i].n; j++)
      if (P.sigs[i].kept[j].index == index) {
        *trace = P.sigs[i].kept[j].trace;
        *logs = P.sigs[i].kept[j].logs;
        return true;
      }
  return false;
}
