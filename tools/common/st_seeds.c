/* Parsing of seed specs (see st_seeds.h for the grammar). */
#include "st_seeds.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st_util.h"

static bool is_hash(const char *s, size_t n) {
  if (n != 40 && n != 64) return false;
  for (size_t i = 0; i < n; i++)
    if (!isxdigit((unsigned char)s[i])) return false;
  return true;
}

static int cmp_range(const void *a, const void *b) {
  const struct st_seed_range *x = a, *y = b;
  return x->first < y->first ? -1 : x->first > y->first;
}

static void add_range(struct st_seeds *out, uint64_t first, uint64_t count) {
  out->ranges = st_xrealloc(out->ranges, sizeof *out->ranges * (size_t)(out->nranges + 1));
  out->ranges[out->nranges].first = first;
  out->ranges[out->nranges].count = count;
  out->nranges++;
}

/* One decimal number of a list item, with its own message. */
static int number(const char *text, size_t n, uint64_t *v, const char *spec, char *err, size_t errlen) {
  char tmp[32];
  if (n == 0 || n >= sizeof tmp) goto bad;
  memcpy(tmp, text, n);
  tmp[n] = '\0';
  if (st_parse_u64(tmp, v)) return 0;
bad:
  snprintf(err, errlen, "bad seed spec '%s': '%.*s' is not a decimal seed in 0..18446744073709551615 "
           "(expected N, A-B, a,b,c or a 40-hex git hash)", spec, (int)(n > 40 ? 40 : n), text);
  return -1;
}

static int parse_hash(const char *spec, size_t hlen, uint64_t default_count, struct st_seeds *out, char *err,
                      size_t errlen) {
  uint64_t count = default_count;
  if (spec[hlen] == ':') {
    if (!st_parse_u64(spec + hlen + 1, &count) || count == 0) {
      snprintf(err, errlen, "bad seed spec '%s': the count after the hash must be a decimal number >= 1", spec);
      return -1;
    }
  }
  char first16[17];
  memcpy(first16, spec, 16);
  first16[16] = '\0';
  uint64_t start = strtoull(first16, NULL, 16);
  add_range(out, start, count);
  out->total = count;
  snprintf(out->label, sizeof out->label, "%.12s...: %llu seeds from %llu", spec, (unsigned long long)count,
           (unsigned long long)start);
  return 0;
}

int st_seeds_parse(const char *spec, uint64_t default_count, struct st_seeds *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  size_t hlen = strcspn(spec, ":");
  if (is_hash(spec, hlen) && (spec[hlen] == '\0' || spec[hlen] == ':') && strspn(spec, "0123456789") < hlen)
    return parse_hash(spec, hlen, default_count, out, err, errlen);
  if (!*spec) {
    snprintf(err, errlen, "bad seed spec '': empty (expected N, A-B, a,b,c or a 40-hex git hash)");
    return -1;
  }
  bool single = !strchr(spec, ',') && !strchr(spec, '-');
  if (single) {
    uint64_t n;
    if (number(spec, strlen(spec), &n, spec, err, errlen)) return -1;
    if (n == 0) {
      snprintf(err, errlen, "bad seed spec '0': N seeds means seeds 1..N, so N must be at least 1");
      return -1;
    }
    add_range(out, 1, n);
    out->total = n;
    snprintf(out->label, sizeof out->label, "1-%llu", (unsigned long long)n);
    return 0;
  }
  const char *p = spec;
  for (;;) {
    size_t n = strcspn(p, ",");
    const char *dash = memchr(p, '-', n);
    uint64_t a, b;
    if (dash) {
      if (number(p, (size_t)(dash - p), &a, spec, err, errlen)) goto fail;
      if (number(dash + 1, n - (size_t)(dash + 1 - p), &b, spec, err, errlen)) goto fail;
      if (b < a) {
        snprintf(err, errlen, "bad seed spec '%s': range %llu-%llu is descending (expected A-B with A <= B)", spec,
                 (unsigned long long)a, (unsigned long long)b);
        goto fail;
      }
      if (a == 0 && b == UINT64_MAX) {
        snprintf(err, errlen, "bad seed spec '%s': the range holds 2^64 seeds", spec);
        goto fail;
      }
    } else {
      if (number(p, n, &a, spec, err, errlen)) goto fail;
      b = a;
    }
    add_range(out, a, b - a + 1);
    if (out->total + (b - a + 1) < out->total) {
      snprintf(err, errlen, "bad seed spec '%s': more than 2^64 seeds", spec);
      goto fail;
    }
    out->total += b - a + 1;
    if (p[n] == '\0') break;
    p += n + 1;
  }
  /* No seed twice: sorted ranges must not overlap. */
  struct st_seed_range *sorted = st_xmalloc(sizeof *sorted * (size_t)out->nranges);
  memcpy(sorted, out->ranges, sizeof *sorted * (size_t)out->nranges);
  qsort(sorted, (size_t)out->nranges, sizeof *sorted, cmp_range);
  for (int i = 1; i < out->nranges; i++) {
    uint64_t prev_last = sorted[i - 1].first + sorted[i - 1].count - 1;
    if (sorted[i].first <= prev_last) {
      snprintf(err, errlen, "bad seed spec '%s': seed %llu appears twice", spec, (unsigned long long)sorted[i].first);
      free(sorted);
      goto fail;
    }
  }
  free(sorted);
  snprintf(out->label, sizeof out->label, "%.150s", spec);
  return 0;
fail:
  free(out->ranges);
  memset(out, 0, sizeof *out);
  return -1;
}

uint64_t st_seeds_at(const struct st_seeds *s, uint64_t index) {
  for (int i = 0; i < s->nranges; i++) {
    if (index < s->ranges[i].count) return s->ranges[i].first + index;
    index -= s->ranges[i].count;
  }
  return 0; /* unreachable for index < total */
}
