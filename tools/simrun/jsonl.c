/* JSON lines: one object per seed, written as each seed finishes (so an
 * interrupted sweep keeps what ran), and read back by --merge.
 *
 *   {"index":3,"seed":4,"class":"deadlock","exit_status":83,"events":19,
 *    "history":"5945c3497f90e1d7","sim_time_s":0.000120,"wall_s":0.0123,
 *    "cpu_s":0.0101,
 *    "signature":"deadlock in main,f,g","checks":{"name":3},
 *    "points":[{"kind":"sometimes","name":"split during scan","hits":2,
 *               "evals":9},...],
 *    "trace":"detsim-4.trace","stderr_tail":["line",...],
 *    "stderr_own":["its own first line",...],
 *    "program":"./abba","argv":["./abba"],"options":"","level":1,
 *    "level_passed":false,"seeds":"1-100","seeds_total":100}
 *
 * index is the seed's position in the whole seed set (shards interleave);
 * events and history are null for a seed that was killed; signature,
 * stderr_tail and stderr_own are null for a pass (stderr_own also for a
 * failure without lines of its own).  Lines are in completion order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "simrun.h"
#include "st_classes.h"
#include "st_json.h"
#include "st_limits.h"

static FILE *jsonl;
static const char *jsonl_path;

void simrun_jsonl_open(const char *path) {
  jsonl = fopen(path, "w");
  if (!jsonl) st_die(ST_EXIT_USAGE, "cannot write --jsonl file '%s': %s", path, strerror(errno));
  jsonl_path = path;
}

void simrun_jsonl_close(void) {
  if (!jsonl) return;
  if (fclose(jsonl) != 0) st_die(ST_EXIT_HARNESS, "cannot write --jsonl file '%s': %s", jsonl_path, strerror(errno));
  jsonl = NULL;
}

void simrun_jsonl_write(const struct simrun_record *rec, const struct simrun_sweep_info *info) {
  if (!jsonl) return;
  const struct simrun_result *r = &rec->r;
  struct st_buf b = { 0 };
  st_buf_printf(&b, "{\"index\":%llu,\"seed\":%llu,\"class\":\"%s\",\"exit_status\":%d,", (unsigned long long)r->index,
                (unsigned long long)r->seed, st_class_name(r->cls), r->exit_status);
  if (r->has_history)
    st_buf_printf(&b, "\"events\":%llu,\"history\":\"%016llx\",", (unsigned long long)r->events,
                  (unsigned long long)r->history);
  else
    st_buf_puts(&b, "\"events\":null,\"history\":null,");
  st_buf_printf(&b, "\"sim_time_s\":%llu.%06llu,\"wall_s\":%.6f,\"cpu_s\":%.6f,\"signature\":",
                (unsigned long long)(r->sim_us / 1000000), (unsigned long long)(r->sim_us % 1000000), r->wall_s, r->cpu_s);
  if (rec->signature) st_json_str(&b, rec->signature);
  else st_buf_puts(&b, "null");
  if (rec->nfaults) {
    st_buf_puts(&b, ",\"faults\":{");
    for (int i = 0; i < rec->nfaults; i++) {
      if (i) st_buf_puts(&b, ",");
      st_json_str(&b, rec->faults[i].name);
      st_buf_printf(&b, ":%llu", (unsigned long long)rec->faults[i].count);
    }
    st_buf_puts(&b, "}");
  }
  st_buf_puts(&b, ",\"checks\":{");
  for (int i = 0; i < rec->nchecks; i++) {
    if (i) st_buf_puts(&b, ",");
    st_json_str(&b, rec->checks[i].name);
    st_buf_printf(&b, ":%llu", (unsigned long long)rec->checks[i].count);
  }
  st_buf_puts(&b, "},\"points\":[");
  for (int i = 0; i < rec->npoints; i++) {
    const struct st_point *p = &rec->points[i];
    st_buf_printf(&b, "%s{\"kind\":\"%s\",\"name\":", i ? "," : "", st_point_kind_name(p->kind));
    st_json_str(&b, p->name);
    st_buf_printf(&b, ",\"hits\":%llu,\"evals\":%llu}", (unsigned long long)p->hits, (unsigned long long)p->evals);
  }
  st_buf_puts(&b, "],\"trace\":");
  if (rec->trace) st_json_str(&b, rec->trace);
  else st_buf_puts(&b, "null");
  st_buf_puts(&b, ",\"stderr_tail\":");
  if (rec->tail) {
    st_buf_puts(&b, "[");
    bool first = true;
    for (const char *l = rec->tail; *l;) {
      const char *nl = strchr(l, '\n');
      size_t n = nl ? (size_t)(nl - l) : strlen(l);
      char *line = st_xasprintf("%.*s", (int)n, l);
      if (!first) st_buf_puts(&b, ",");
      st_json_str(&b, line);
      free(line);
      first = false;
      if (!nl) break;
      l = nl + 1;
    }
    st_buf_puts(&b, "]");
  } else {
    st_buf_puts(&b, "null");
  }
  st_buf_puts(&b, ",\"stderr_own\":");
  if (rec->own) {
    st_buf_puts(&b, "[");
    bool first = true;
    for (const char *l = rec->own; *l;) {
      const char *nl = strchr(l, '\n');
      size_t n = nl ? (size_t)(nl - l) : strlen(l);
      char *line = st_xasprintf("%.*s", (int)n, l);
      if (!first) st_buf_puts(&b, ",");
      st_json_str(&b, line);
      free(line);
      first = false;
      if (!nl) break;
      l = nl + 1;
    }
    st_buf_puts(&b, "]");
  } else {
    st_buf_puts(&b, "null");
  }
  st_buf_puts(&b, ",\"program\":");
  st_json_str(&b, info->argv[0]);
  st_buf_puts(&b, ",\"argv\":[");
  for (int i = 0; info->argv[i]; i++) {
    if (i) st_buf_puts(&b, ",");
    st_json_str(&b, info->argv[i]);
  }
  st_buf_puts(&b, "],\"options\":");
  st_json_str(&b, info->options ? info->options : "");
  st_buf_printf(&b, ",\"level\":%d,\"level_passed\":%s,\"seeds\":", info->level, info->level_passed ? "true" : "false");
  st_json_str(&b, info->seeds_label);
  st_buf_printf(&b, ",\"seeds_total\":%llu}\n", (unsigned long long)info->seeds_total);
  if (fwrite(b.s, 1, b.len, jsonl) != b.len || fflush(jsonl) != 0)
    st_die(ST_EXIT_HARNESS, "cannot write --jsonl file '%s': %s", jsonl_path, strerror(errno));
  st_buf_free(&b);
}

/* ---- --merge ---- */

struct loaded {
  struct st_json *j;
  const char *file;
  int line;
  uint64_t index, seed;
};

static _Noreturn void bad_file(const char *file, int line, const char *what) {
  st_die(ST_EXIT_USAGE, "--merge: %s:%d: %s", file, line, what);
}

static const struct st_json *need(const struct loaded *l, const char *key, enum st_json_type type, bool nullable) {
  const struct st_json *v = st_json_get(l->j, key);
  if (!v || (v->type != type && !(nullable && v->type == ST_JSON_NULL))) {
    char *what = st_xasprintf("field '%s' is missing or not a %s: not a simrun --jsonl record", key,
                              type == ST_JSON_STR ? "string" : type == ST_JSON_NUM ? "number" : type == ST_JSON_OBJ ? "object" : type == ST_JSON_ARR ? "array" : "boolean");
    bad_file(l->file, l->line, what);
  }
  return v->type == ST_JSON_NULL ? NULL : v;
}

static uint64_t need_u64(const struct loaded *l, const char *key) {
  const struct st_json *v = need(l, key, ST_JSON_NUM, false);
  if (!v->is_u64) {
    char *what = st_xasprintf("field '%s' is not a whole number", key);
    bad_file(l->file, l->line, what);
  }
  return v->u64;
}

static int cmp_loaded(const void *a, const void *b) {
  const struct loaded *x = a, *y = b;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The sweep-wide fields must be the same in every record. */
static bool same_sweep(const struct loaded *a, const struct loaded *b) {
  const char *keys[] = { "options", "seeds", "level", "seeds_total", "argv" };
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const struct st_json *x = st_json_get(a->j, keys[i]), *y = st_json_get(b->j, keys[i]);
    if (!x || !y || x->type != y->type) return false;
    if (x->type == ST_JSON_STR && strcmp(x->str, y->str)) return false;
    if (x->type == ST_JSON_NUM && x->num != y->num) return false;
    if (x->type == ST_JSON_ARR) {
      if (x->n != y->n) return false;
      for (int k = 0; k < x->n; k++)
        if (x->items[k]->type != ST_JSON_STR || y->items[k]->type != ST_JSON_STR || strcmp(x->items[k]->str, y->items[k]->str))
          return false;
    }
  }
  return true;
}

void simrun_merge(char **files, int nfiles, struct simrun_sweep_info *info) {
  struct loaded *all = NULL;
  size_t n = 0, cap = 0;
  for (int f = 0; f < nfiles; f++) {
    char *data;
    size_t len;
    if (st_read_file(files[f], 1ull << 34, &data, &len) != 0)
      st_die(ST_EXIT_USAGE, "--merge: cannot read '%s': %s", files[f], strerror(errno));
    int lineno = 0;
    for (char *l = data; *l;) {
      char *nl = strchr(l, '\n');
      if (nl) *nl = '\0';
      lineno++;
      if (*l) {
        char err[200];
        struct st_json *j = st_json_parse(l, err, sizeof err);
        if (!j) bad_file(files[f], lineno, err);
        if (j->type != ST_JSON_OBJ) bad_file(files[f], lineno, "not a JSON object");
        if (n == cap) all = st_xrealloc(all, sizeof *all * (cap = cap ? cap * 2 : 256));
        all[n] = (struct loaded){ j, files[f], lineno, 0, 0 };
        all[n].index = need_u64(&all[n], "index");
        all[n].seed = need_u64(&all[n], "seed");
        n++;
      } else if (nl && nl[1] != '\0') {
        bad_file(files[f], lineno, "empty line");
      }
      if (!nl) break;
      l = nl + 1;
    }
    free(data);
  }
  if (n == 0) st_die(ST_EXIT_USAGE, "--merge: the files hold no records");
  if (n > SIMRUN_SEEDS_MAX) st_die(ST_EXIT_USAGE, "--merge: more than %u records (limit SIMRUN_SEEDS_MAX)", SIMRUN_SEEDS_MAX);
  qsort(all, n, sizeof *all, cmp_loaded);
  for (size_t i = 0; i < n; i++) {
    if (i && all[i].index == all[i - 1].index) {
      char *what = st_xasprintf("seed %llu (index %llu) is also in %s:%d: shards overlap or a file is merged twice",
                                (unsigned long long)all[i].seed, (unsigned long long)all[i].index, all[i - 1].file,
                                all[i - 1].line);
      bad_file(all[i].file, all[i].line, what);
    }
    if (!same_sweep(&all[i], &all[0])) {
      char *what = st_xasprintf("a different sweep than %s:%d (program, argv, options, level or seed set differ)",
                                all[0].file, all[0].line);
      bad_file(all[i].file, all[i].line, what);
    }
  }
  /* The sweep-wide fields, from the first record. */
  const struct st_json *argv = need(&all[0], "argv", ST_JSON_ARR, false);
  info->argv = st_xcalloc((size_t)argv->n + 1, sizeof *info->argv);
  for (int k = 0; k < argv->n; k++) {
    if (argv->items[k]->type != ST_JSON_STR) bad_file(all[0].file, all[0].line, "argv holds a non-string");
    info->argv[k] = st_xstrdup(argv->items[k]->str);
  }
  if (argv->n == 0) bad_file(all[0].file, all[0].line, "argv is empty");
  info->options = st_xstrdup(need(&all[0], "options", ST_JSON_STR, false)->str);
  info->level = (int)need_u64(&all[0], "level");
  if (info->level < 1 || info->level > 3) bad_file(all[0].file, all[0].line, "level is not 1, 2 or 3");
  const struct st_json *lp = st_json_get(all[0].j, "level_passed");
  info->level_passed = lp && lp->type == ST_JSON_BOOL && lp->b;
  info->repro_options = info->options;
  if (info->level_passed)
    info->repro_options = st_xasprintf("%s%slevel=%d", info->options, info->options[0] ? ":" : "", info->level);
  info->seeds_label = st_xstrdup(need(&all[0], "seeds", ST_JSON_STR, false)->str);
  info->seeds_total = need_u64(&all[0], "seeds_total");
  info->merged_files = nfiles;
  info->wall_is_sum = true;
  info->jobs = 0;
  info->wall_s = 0;
  for (size_t i = 0; i < n; i++) {
    const struct loaded *l = &all[i];
    struct simrun_record rec;
    memset(&rec, 0, sizeof rec);
    rec.r.index = l->index;
    rec.r.seed = l->seed;
    const char *cls = need(l, "class", ST_JSON_STR, false)->str;
    rec.r.cls = st_class_find(cls, (int)strlen(cls));
    if (rec.r.cls < 0) {
      char *what = st_xasprintf("unknown class '%s'", cls);
      bad_file(l->file, l->line, what);
    }
    const struct st_json *es = need(l, "exit_status", ST_JSON_NUM, false);
    rec.r.exit_status = (int)es->num;
    const struct st_json *ev = need(l, "events", ST_JSON_NUM, true);
    const struct st_json *h = need(l, "history", ST_JSON_STR, true);
    if (ev && h) {
      rec.r.has_history = true;
      rec.r.events = ev->u64;
      rec.r.history = strtoull(h->str, NULL, 16);
    }
    rec.r.sim_us = (uint64_t)(need(l, "sim_time_s", ST_JSON_NUM, false)->num * 1e6 + 0.5);
    rec.r.wall_s = need(l, "wall_s", ST_JSON_NUM, false)->num;
    info->wall_s += rec.r.wall_s;
    const struct st_json *cpu = st_json_get(l->j, "cpu_s"); /* absent in older files */
    rec.r.cpu_s = cpu && cpu->type == ST_JSON_NUM ? cpu->num : rec.r.wall_s;
    const struct st_json *sig = need(l, "signature", ST_JSON_STR, true);
    rec.signature = sig ? sig->str : NULL;
    if (rec.r.cls != ST_CLASS_pass && !rec.signature) bad_file(l->file, l->line, "a failure without a signature");
    const struct st_json *checks = need(l, "checks", ST_JSON_OBJ, false);
    struct st_check *cs = st_xcalloc((size_t)checks->n + 1, sizeof *cs);
    for (int k = 0; k < checks->n; k++) {
      if (!checks->items[k]->is_u64) bad_file(l->file, l->line, "a check count is not a whole number");
      cs[k].name = checks->keys[k];
      cs[k].count = checks->items[k]->u64;
    }
    rec.checks = cs;
    rec.nchecks = checks->n;
    const struct st_json *faults = st_json_get(l->j, "faults");
    struct st_check *fs = NULL;
    if (faults) {
      if (faults->type != ST_JSON_OBJ) bad_file(l->file, l->line, "\"faults\" is not an object");
      fs = st_xcalloc((size_t)faults->n + 1, sizeof *fs);
      for (int k = 0; k < faults->n; k++) {
        if (!faults->items[k]->is_u64) bad_file(l->file, l->line, "a fault count is not a whole number");
        fs[k].name = faults->keys[k];
        fs[k].count = faults->items[k]->u64;
      }
      rec.faults = fs;
      rec.nfaults = faults->n;
    }
    /* Coverage points (absent in files of a simrun without them). */
    const struct st_json *points = st_json_get(l->j, "points");
    struct st_point *ps = NULL;
    if (points) {
      if (points->type != ST_JSON_ARR) bad_file(l->file, l->line, "\"points\" is not an array");
      ps = st_xcalloc((size_t)points->n + 1, sizeof *ps);
      for (int k = 0; k < points->n; k++) {
        const struct st_json *pt = points->items[k];
        const struct st_json *kind = pt->type == ST_JSON_OBJ ? st_json_get(pt, "kind") : NULL;
        const struct st_json *name = pt->type == ST_JSON_OBJ ? st_json_get(pt, "name") : NULL;
        const struct st_json *hits = pt->type == ST_JSON_OBJ ? st_json_get(pt, "hits") : NULL;
        const struct st_json *evals = pt->type == ST_JSON_OBJ ? st_json_get(pt, "evals") : NULL;
        if (!kind || kind->type != ST_JSON_STR || !name || name->type != ST_JSON_STR || !hits || !hits->is_u64 ||
            !evals || !evals->is_u64)
          bad_file(l->file, l->line, "a point is not {kind, name, hits, evals}");
        ps[k].kind = st_point_kind_find(kind->str, strlen(kind->str));
        if (!ps[k].kind) bad_file(l->file, l->line, "a point's kind is not sometimes, reachable or unreachable");
        ps[k].name = name->str;
        ps[k].hits = hits->u64;
        ps[k].evals = evals->u64;
      }
      rec.points = ps;
      rec.npoints = points->n;
    }
    const struct st_json *trace = need(l, "trace", ST_JSON_STR, true);
    rec.trace = trace ? trace->str : NULL;
    const struct st_json *tail = need(l, "stderr_tail", ST_JSON_ARR, true);
    struct st_buf tb = { 0 };
    for (int k = 0; tail && k < tail->n; k++)
      if (tail->items[k]->type == ST_JSON_STR) st_buf_printf(&tb, "%s\n", tail->items[k]->str);
    rec.tail = tail ? (tb.s ? tb.s : "") : NULL;
    const struct st_json *own = st_json_get(l->j, "stderr_own"); /* absent in older files */
    struct st_buf ob = { 0 };
    for (int k = 0; own && own->type == ST_JSON_ARR && k < own->n; k++)
      if (own->items[k]->type == ST_JSON_STR) st_buf_printf(&ob, "%s\n", own->items[k]->str);
    rec.own = ob.s;
    simrun_record_done(&rec, info);
    st_buf_free(&tb);
    st_buf_free(&ob);
    free(cs);
    free(fs);
    free(ps);
    st_json_free(all[i].j);
  }
  free(all);
}
