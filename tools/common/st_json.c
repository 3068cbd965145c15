/* A small JSON reader and string escapers (see st_json.h).  Nesting is
 * bounded (ST_JSON_DEPTH_MAX) so a hostile file cannot exhaust the stack. */
#include "st_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* simrun's records nest two levels; this leaves room and bounds recursion. */
#define ST_JSON_DEPTH_MAX 32

void st_json_str(struct st_buf *b, const char *s) {
  st_buf_puts(b, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': st_buf_puts(b, "\\\""); break;
    case '\\': st_buf_puts(b, "\\\\"); break;
    case '\n': st_buf_puts(b, "\\n"); break;
    case '\r': st_buf_puts(b, "\\r"); break;
    case '\t': st_buf_puts(b, "\\t"); break;
    default:
      if (*p < 0x20 || *p == 0x7f) st_buf_printf(b, "\\u%04x", *p);
      else st_buf_add(b, (const char *)p, 1);
    }
  }
  st_buf_puts(b, "\"");
}

void st_xml_str(struct st_buf *b, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '<': st_buf_puts(b, "&lt;"); break;
    case '>': st_buf_puts(b, "&gt;"); break;
    case '&': st_buf_puts(b, "&amp;"); break;
    case '"': st_buf_puts(b, "&quot;"); break;
    case '\'': st_buf_puts(b, "&apos;"); break;
    default:
      /* XML 1.0 allows no other control characters. */
      if (*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r') st_buf_puts(b, "?");
      else st_buf_add(b, (const char *)p, 1);
    }
  }
}

struct parser {
  const char *p;
  char *err;
  size_t errlen;
  int depth;
};

static void skip_ws(struct parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static struct st_json *fail(struct parser *ps, const char *what) {
  if (!ps->err[0]) snprintf(ps->err, ps->errlen, "%s at '%.20s'", what, ps->p);
  return NULL;
}

static void put_utf8(struct st_buf *b, unsigned cp) {
  char u[4];
  if (cp < 0x80) { u[0] = (char)cp; st_buf_add(b, u, 1); }
  else if (cp < 0x800) { u[0] = (char)(0xc0 | cp >> 6); u[1] = (char)(0x80 | (cp & 0x3f)); st_buf_add(b, u, 2); }
  else { u[0] = (char)(0xe0 | cp >> 12); u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)); u[2] = (char)(0x80 | (cp & 0x3f)); st_buf_add(b, u, 3); }
}

static char *parse_string(struct parser *ps) {
  if (*ps->p != '"') return (fail(ps, "expected a string"), NULL);
  ps->p++;
  struct st_buf b = { 0 };
  st_buf_puts(&b, "");
  while (*ps->p != '"') {
    if (!*ps->p || (unsigned char)*ps->p < 0x20) {
      st_buf_free(&b);
      return (fail(ps, "unterminated string"), NULL);
    }
    if (*ps->p == '\\') {
      ps->p++;
      char c = *ps->p;
      if (c) ps->p++;
      switch (c) {
      case '"': case '\\': case '/': st_buf_add(&b, &c, 1); break;
      case 'n': st_buf_puts(&b, "\n"); break;
      case 't': st_buf_puts(&b, "\t"); break;
      case 'r': st_buf_puts(&b, "\r"); break;
      case 'b': st_buf_puts(&b, "\b"); break;
      case 'f': st_buf_puts(&b, "\f"); break;
      case 'u': {
        unsigned cp = 0;
        for (int i = 0; i < 4; i++) {
          char h = *ps->p;
          if (h) ps->p++;
          cp <<= 4;
          if (h >= '0' && h <= '9') cp |= (unsigned)(h - '0');
          else if (h >= 'a' && h <= 'f') cp |= (unsigned)(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') cp |= (unsigned)(h - 'A' + 10);
          else { st_buf_free(&b); return (fail(ps, "bad \\u escape"), NULL); }
        }
        put_utf8(&b, cp);
        break;
      }
      default: st_buf_free(&b); return (fail(ps, "bad escape"), NULL);
      }
    } else {
      st_buf_add(&b, ps->p, 1);
      ps->p++;
    }
  }
  ps->p++;
  return b.s;
}

static struct st_json *parse_value(struct parser *ps);

static struct st_json *parse_container(struct parser *ps, struct st_json *j, bool object) {
  char close = object ? '}' : ']';
  ps->p++;
  skip_ws(ps);
  if (*ps->p == close) {
    ps->p++;
    return j;
  }
  for (;;) {
    skip_ws(ps);
    char *key = NULL;
    if (object) {
      key = parse_string(ps);
      if (!key) goto bad;
      skip_ws(ps);
      if (*ps->p != ':') { free(key); fail(ps, "expected ':'"); goto bad; }
      ps->p++;
    }
    struct st_json *v = parse_value(ps);
    if (!v) { free(key); goto bad; }
    j->items = st_xrealloc(j->items, sizeof *j->items * (size_t)(j->n + 1));
    if (object) j->keys = st_xrealloc(j->keys, sizeof *j->keys * (size_t)(j->n + 1));
    j->items[j->n] = v;
    if (object) j->keys[j->n] = key;
    j->n++;
    skip_ws(ps);
    if (*ps->p == ',') { ps->p++; continue; }
    if (*ps->p == close) { ps->p++; return j; }
    fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
    goto bad;
  }
bad:
  st_json_free(j);
  return NULL;
}

static struct st_json *parse_value(struct parser *ps) {
  skip_ws(ps);
  if (ps->depth >= ST_JSON_DEPTH_MAX) return fail(ps, "nested too deep");
  struct st_json *j = st_xcalloc(1, sizeof *j);
  char c = *ps->p;
  if (c == '{' || c == '[') {
    j->type = c == '{' ? ST_JSON_OBJ : ST_JSON_ARR;
    ps->depth++;
    struct st_json *r = parse_container(ps, j, c == '{');
    ps->depth--;
    return r;
  }
  if (c == '"') {
    j->type = ST_JSON_STR;
    j->str = parse_string(ps);
    if (!j->str) { free(j); return NULL; }
    return j;
  }
  if (!strncmp(ps->p, "null", 4)) { ps->p += 4; return j; }
  if (!strncmp(ps->p, "true", 4)) { ps->p += 4; j->type = ST_JSON_BOOL; j->b = true; return j; }
  if (!strncmp(ps->p, "false", 5)) { ps->p += 5; j->type = ST_JSON_BOOL; return j; }
  if (c == '-' || (c >= '0' && c <= '9')) {
    j->type = ST_JSON_NUM;
    char *end;
    errno = 0;
    j->num = strtod(ps->p, &end);
    if (end == ps->p) { free(j); return fail(ps, "bad number"); }
    size_t digits = strspn(ps->p, "0123456789");
    if (c != '-' && ps->p + digits == end) {
      errno = 0;
      unsigned long long u = strtoull(ps->p, NULL, 10);
      if (errno == 0) { j->is_u64 = true; j->u64 = u; }
    }
    ps->p = end;
    return j;
  }
  free(j);
  return fail(ps, "expected a JSON value");
}

struct st_json *st_json_parse(const char *text, char *err, size_t errlen) {
  struct parser ps = { text, err, errlen, 0 };
  err[0] = '\0';
  struct st_json *j = parse_value(&ps);
  if (!j) return NULL;
  skip_ws(&ps);
  if (*ps.p) {
    st_json_free(j);
    fail(&ps, "trailing text");
    return NULL;
  }
  return j;
}

void st_json_free(struct st_json *j) {
  if (!j) return;
  for (int i = 0; i < j->n; i++) {
    st_json_free(j->items[i]);
    if (j->keys) free(j->keys[i]);
  }
  free(j->items);
  free(j->keys);
  free(j->str);
  free(j);
}

const struct st_json *st_json_get(const struct st_json *obj, const char *key) {
  if (!obj || obj->type != ST_JSON_OBJ) return NULL;
  for (int i = 0; i < obj->n; i++)
    if (!strcmp(obj->keys[i], key)) return obj->items[i];
  return NULL;
}
