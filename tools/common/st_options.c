/* DETSIM_OPTIONS text, read as the runtime reads it (st_options.h). */
#include "st_options.h"

#include <stdlib.h>
#include <string.h>

#include "st_util.h"

char *st_options_value(const char *options, const char *key) {
  char *found = NULL;
  size_t k = strlen(key);
  for (const char *p = options; *p;) {
    size_t n = strcspn(p, ":");
    if (n > k && !strncmp(p, key, k) && p[k] == '=') {
      free(found);
      found = st_xasprintf("%.*s", (int)(n - k - 1), p + k + 1);
    }
    p += n;
    if (*p == ':') p++;
  }
  return found;
}

bool st_options_have(const char *options, const char *key) {
  char *v = st_options_value(options, key);
  free(v);
  return v != NULL;
}

bool st_options_true(const char *options, const char *key) {
  char *v = st_options_value(options, key);
  bool on = v && (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes"));
  free(v);
  return on;
}

char *st_options_without(const char *options, const char *key) {
  struct st_buf b = { 0 };
  st_buf_puts(&b, "");
  size_t k = strlen(key);
  for (const char *p = options; *p;) {
    size_t n = strcspn(p, ":");
    bool drop = n >= k && !strncmp(p, key, k) && (p[k] == '=' || n == k);
    if (!drop && n > 0) {
      if (b.len) st_buf_puts(&b, ":");
      st_buf_add(&b, p, n);
    }
    p += n;
    if (*p == ':') p++;
  }
  return b.s;
}
