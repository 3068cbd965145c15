/* Just enough JSON for the tools' own files: a string escaper for writing,
 * and a small parser for reading back simrun's JSON lines (--merge).
 * Integers are kept exactly as u64 (seeds use all 64 bits). */
#ifndef ST_JSON_H
#define ST_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "st_util.h"

/* Appends s as a JSON string literal (quotes included). */
void st_json_str(struct st_buf *b, const char *s);
/* Appends s escaped for XML text and attribute values. */
void st_xml_str(struct st_buf *b, const char *s);

enum st_json_type { ST_JSON_NULL, ST_JSON_BOOL, ST_JSON_NUM, ST_JSON_STR, ST_JSON_ARR, ST_JSON_OBJ };

struct st_json {
  enum st_json_type type;
  bool b;
  double num;
  bool is_u64; /* a non-negative integer that fits: u64 holds it exactly */
  uint64_t u64;
  char *str;
  int n;                  /* items of an array or object */
  struct st_json **items;
  char **keys;            /* for an object */
};

/* Parses one JSON value filling all of text (whitespace around allowed).
 * NULL with a message in err on bad input. */
struct st_json *st_json_parse(const char *text, char *err, size_t errlen);
void st_json_free(struct st_json *j);
/* The member `key` of an object, or NULL. */
const struct st_json *st_json_get(const struct st_json *obj, const char *key);

#endif
