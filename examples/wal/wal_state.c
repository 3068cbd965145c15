/* wal_state: the key table (see wal_state.h).  A linear search: the table
 * is small and the point of the example is the log, not the index. */
#include "wal_state.h"

#include <string.h>

static int find(const struct wal_state *s, const char *key) {
  for (unsigned i = 0; i < s->n; i++)
    if (strcmp(s->e[i].key, key) == 0) return (int)i;
  return -1;
}

const struct wal_entry *wal_state_get(const struct wal_state *s, const char *key) {
  int i = find(s, key);
  return i < 0 ? NULL : &s->e[i];
}

int wal_state_is_newer(const struct wal_state *s, const char *key, uint64_t version) {
  int i = find(s, key);
  return i < 0 || s->e[i].version < version;
}

int wal_state_has_room(const struct wal_state *s, const char *key) {
  return find(s, key) >= 0 || s->n < WAL_KEYS_MAX;
}

int wal_state_set(struct wal_state *s, const char *key, uint64_t version, const char *value) {
  int i = find(s, key);
  if (i < 0) {
    if (s->n == WAL_KEYS_MAX) return -1;
    i = (int)s->n++;
    strcpy(s->e[i].key, key);
  } else if (s->e[i].version >= version) {
    return 0;
  }
  s->e[i].version = version;
  strcpy(s->e[i].value, value);
  return 0;
}

int wal_word_ok(const char *w) {
  size_t n = strlen(w);
  if (n == 0 || n > WAL_WORD_MAX) return 0;
  for (size_t i = 0; i < n; i++)
    if (w[i] <= ' ' || w[i] > '~') return 0;
  return 1;
}
