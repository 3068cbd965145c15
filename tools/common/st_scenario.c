/* Scenario files (see st_scenario.h and docs/scenario.md).
 *
 * Two passes.  The first reads the lines, the directives and each
 * server/client line's header, and names the nodes; the second splits and
 * expands each node's command, since a placeholder may name a group
 * declared further down.  Every error goes through fail(), which formats it
 * once; the caller frees whatever was built.
 */
#include "st_scenario.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "st_limits.h"
#include "st_util.h"

struct group {
  char name[ST_SCENARIO_NAME_BYTES];
  bool client;
  unsigned line, first, count; /* nodes[first .. first+count-1] */
  const char *text;            /* the whole line, comment cut, for messages */
  const char *cmd;             /* the command part of text */
};

struct parser {
  const char *path;
  char *dir; /* the scenario file's directory, absolute */
  struct st_scenario *s;
  char *err;
  size_t errlen;
  struct group groups[ST_SCENARIO_NODES_MAX];
  unsigned n_groups, level_line;
};

static int fail(struct parser *p, unsigned line, const char *text, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct parser *p, unsigned line, const char *text, const char *fmt, ...) {
  struct st_buf b = { 0 };
  if (line) st_buf_printf(&b, "%s:%u: ", p->path, line);
  else st_buf_printf(&b, "%s: ", p->path);
  va_list ap;
  va_start(ap, fmt);
  char *msg = NULL;
  if (vasprintf(&msg, fmt, ap) < 0) msg = NULL;
  va_end(ap);
  st_buf_puts(&b, msg ? msg : "(out of memory)");
  free(msg);
  if (text) {
    while (*text == ' ' || *text == '\t') text++;
    st_buf_printf(&b, ": %.200s", text);
  }
  snprintf(p->err, p->errlen, "%s", b.s);
  st_buf_free(&b);
  return -1;
}

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* "[a-z][a-z0-9-]*" */
static bool valid_name(const char *s, size_t n) {
  if (n == 0 || *s < 'a' || *s > 'z') return false;
  for (size_t i = 1; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-')) return false;
  return true;
}

/* Cuts the comment off a line (a '#' outside quotes).  -1 on a quote left
 * open, which would otherwise swallow the rest of the line silently. */
static int cut_comment(char *line) {
  char quote = 0;
  for (char *c = line; *c; c++) {
    if (quote == '"' && *c == '\\' && c[1]) c++;
    else if (quote && *c == quote) quote = 0;
    else if (!quote && (*c == '\'' || *c == '"')) quote = *c;
    else if (!quote && *c == '#') {
      *c = '\0';
      break;
    }
  }
  return quote ? -1 : 0;
}

static const struct group *find_group(const struct parser *p, const char *name, size_t n) {
  for (unsigned i = 0; i < p->n_groups; i++)
    if (strlen(p->groups[i].name) == n && memcmp(p->groups[i].name, name, n) == 0) return &p->groups[i];
  return NULL;
}

/* Appends the expansion of the placeholder ph[0..n) (between the braces)
 * for `node`; col is the column of its '{' for messages. */
static int expand(struct parser *p, const struct group *g, const char *ph, size_t n, unsigned col,
                  const struct st_scenario_node *node, struct st_buf *w) {
  if (n == 4 && memcmp(ph, "name", 4) == 0) {
    st_buf_puts(w, node->name);
    return 0;
  }
  if (n == 5 && memcmp(ph, "index", 5) == 0) {
    st_buf_printf(w, "%u", node->index);
    return 0;
  }
  const char *colon = memchr(ph, ':', n);
  size_t gn = colon ? (size_t)(colon - ph) : n;
  const struct group *target = find_group(p, ph, gn);
  if (!target && colon)
    return fail(p, g->line, g->text, "unknown group '%.*s' in {%.*s} at column %u", (int)gn, ph, (int)n, ph, col);
  if (!target)
    return fail(p, g->line, g->text, "unknown placeholder {%.*s} at column %u (not name, index or a group)", (int)n,
                ph, col);
  uint64_t port = 0;
  if (colon) {
    char digits[8] = "";
    size_t pn = n - gn - 1;
    if (pn < sizeof digits) memcpy(digits, colon + 1, pn), digits[pn] = '\0';
    if (pn >= sizeof digits || !st_parse_u64(digits, &port) || port == 0 || port > 65535)
      return fail(p, g->line, g->text, "bad port in {%.*s} at column %u (want 1-65535)", (int)n, ph, col);
  }
  for (unsigned i = 0; i < target->count; i++) {
    if (i) st_buf_puts(w, ",");
    st_buf_puts(w, p->s->nodes[target->first + i].name);
    if (colon) st_buf_printf(w, ":%u", (unsigned)port);
  }
  return 0;
}

/* Splits a command into words as docs/scenario.md says: blanks separate,
 * '…' groups literally, "…" groups with \" and \\ as escapes, {…} expands
 * outside single quotes, {{ and }} are braces.  The words are appended to
 * node->argv. */
static int split_command(struct parser *p, const struct group *g, struct st_scenario_node *node) {
  const char *c = g->cmd;
  unsigned cap = 8;
  node->argv = st_xcalloc(cap, sizeof *node->argv);
  for (;;) {
    while (is_blank(*c)) c++;
    if (!*c) break;
    struct st_buf w = { 0 };
    st_buf_puts(&w, "");
    char quote = 0;
    while (*c && (quote || !is_blank(*c))) {
      unsigned col = (unsigned)(c - g->text) + 1;
      if (quote == '\'' && *c == '\'') quote = 0, c++;
      else if (quote == '"' && *c == '"') quote = 0, c++;
      else if (!quote && (*c == '\'' || *c == '"')) quote = *c++;
      else if (quote == '\'') st_buf_add(&w, c++, 1);
      else if (quote == '"' && *c == '\\' && (c[1] == '"' || c[1] == '\\')) st_buf_add(&w, c + 1, 1), c += 2;
      else if ((*c == '{' || *c == '}') && c[1] == *c) st_buf_add(&w, c, 1), c += 2;
      else if (*c == '}') {
        st_buf_free(&w);
        return fail(p, g->line, g->text, "stray '}' at column %u (write }} for a brace)", col);
      } else if (*c == '{') {
        const char *end = c + 1;
        while (*end && *end != '}' && *end != '{' && !is_blank(*end) && *end != '\'' && *end != '"') end++;
        if (*end != '}') {
          st_buf_free(&w);
          return fail(p, g->line, g->text, "unterminated placeholder at column %u (write {{ for a brace)", col);
        }
        if (expand(p, g, c + 1, (size_t)(end - c - 1), col, node, &w) != 0) {
          st_buf_free(&w);
          return -1;
        }
        c = end + 1;
      } else st_buf_add(&w, c++, 1);
    }
    if (node->argc + 2 > cap) node->argv = st_xrealloc(node->argv, sizeof *node->argv * (cap *= 2));
    node->argv[node->argc++] = w.s;
    node->argv[node->argc] = NULL;
    if (node->argc > ST_ARGS_MAX) return fail(p, g->line, g->text, "more than %u arguments", ST_ARGS_MAX);
  }
  if (node->argc == 0 || !node->argv[0][0]) return fail(p, g->line, g->text, "empty command");
  return 0;
}

static bool executable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The program a node runs: a bare name from the scenario's directory, else
 * PATH; a relative path from the scenario's directory. */
static int resolve_program(struct parser *p, const struct group *g, struct st_scenario_node *node) {
  const char *word = node->argv[0];
  char *cand = word[0] == '/' ? st_xstrdup(word) : st_xasprintf("%s/%s", p->dir, word);
  if (!strchr(word, '/') && !executable_file(cand)) {
    char *found = st_find_program(word);
    if (!found && access(cand, F_OK) != 0) {
      free(cand);
      return fail(p, g->line, g->text, "program '%s' not found in %s nor on PATH", word, p->dir);
    }
    if (found) {
      free(cand);
      cand = found;
    }
  }
  if (!executable_file(cand)) {
    int rc = fail(p, g->line, g->text, "program '%s' (%s) %s", word, cand,
                  access(cand, F_OK) == 0 ? "is not an executable file" : "does not exist");
    free(cand);
    return rc;
  }
  char abs[PATH_MAX];
  node->program = st_xstrdup(realpath(cand, abs) ? abs : cand);
  free(cand);
  return 0;
}

static int parse_group(struct parser *p, unsigned line, const char *text, const char *colon, int fields,
                       const char *name, const char *count, bool client);

/* "server NAME [xN]: COMMAND" / "client …": the group and its nodes. */
static int parse_node_line(struct parser *p, unsigned line, const char *text, const char *rest, bool client) {
  const char *colon = strchr(rest, ':');
  size_t hn = colon ? (size_t)(colon - rest) : 0;
  char *header = st_xasprintf("%.*s", (int)hn, rest);
  char *name = st_xcalloc(hn + 1, 1), *count = st_xcalloc(hn + 1, 1), junk[2] = "";
  int fields = sscanf(header, "%s %s %1s", name, count, junk);
  free(header);
  int rc = parse_group(p, line, text, colon, fields, name, count, client);
  free(name);
  free(count);
  return rc;
}

static int parse_group(struct parser *p, unsigned line, const char *text, const char *colon, int fields,
                       const char *name, const char *count, bool client) {
  const char *kw = client ? "client" : "server";
  if (!colon || fields == 3)
    return fail(p, line, text, "missing ':' after '%s NAME [xN]'", kw);
  if (fields < 1) return fail(p, line, text, "missing NAME before ':'");
  unsigned n = 1;
  bool replicated = fields == 2;
  if (replicated) {
    uint64_t v;
    if (count[0] != 'x' || !st_parse_u64(count + 1, &v))
      return fail(p, line, text, "bad replica count '%s' (want xN, N from 1 to %d)", count, ST_SCENARIO_NODES_MAX);
    if (v == 0 || v > ST_SCENARIO_NODES_MAX)
      return fail(p, line, text, "replica count %s out of range (want N from 1 to %d)", count, ST_SCENARIO_NODES_MAX);
    n = (unsigned)v;
  }
  if (!valid_name(name, strlen(name)))
    return fail(p, line, text, "bad name '%s' (want [a-z][a-z0-9-]*)", name);
  if (strlen(name) >= ST_SCENARIO_NAME_BYTES)
    return fail(p, line, text, "name '%.40s...' longer than %d characters", name, ST_SCENARIO_NAME_BYTES - 1);
  if (!strcmp(name, "name") || !strcmp(name, "index"))
    return fail(p, line, text, "name '%s' is reserved: {%s} is a placeholder", name, name);
  const struct group *dup = find_group(p, name, strlen(name));
  if (dup) return fail(p, line, text, "group '%s' already declared on line %u", name, dup->line);
  if (p->s->n_nodes + n > ST_SCENARIO_NODES_MAX)
    return fail(p, line, text, "too many nodes: %u declared so far, at most %d", p->s->n_nodes + n, ST_SCENARIO_NODES_MAX);
  const char *cmd = colon + 1;
  while (is_blank(*cmd)) cmd++;
  if (!*cmd) return fail(p, line, text, "empty command after ':'");

  struct group *g = &p->groups[p->n_groups++];
  *g = (struct group){ .client = client, .line = line, .first = p->s->n_nodes, .count = n, .text = text, .cmd = cmd };
  snprintf(g->name, sizeof g->name, "%s", name);
  for (unsigned i = 1; i <= n; i++) {
    char node_name[64];
    if (replicated) snprintf(node_name, sizeof node_name, "%s%u", name, i);
    else snprintf(node_name, sizeof node_name, "%s", name);
    if (strlen(node_name) >= ST_SCENARIO_NAME_BYTES)
      return fail(p, line, text, "node name '%s' longer than %d characters", node_name, ST_SCENARIO_NAME_BYTES - 1);
    for (unsigned j = 0; j < p->s->n_nodes; j++)
      if (!strcmp(p->s->nodes[j].name, node_name))
        return fail(p, line, text, "duplicate node name '%s' (also declared on line %u)", node_name, p->s->nodes[j].line);
    struct st_scenario_node *node = &p->s->nodes[p->s->n_nodes++];
    snprintf(node->name, sizeof node->name, "%s", node_name);
    snprintf(node->group, sizeof node->group, "%s", name);
    node->index = i;
    node->client = client;
    node->line = line;
  }
  return 0;
}

/* "level N": 1|2|3 or sunny|stormy|radioactive. */
static int parse_level(struct parser *p, unsigned line, const char *text, const char *rest) {
  static const char *const names[] = { "sunny", "stormy", "radioactive" };
  char word[32] = "", junk[2] = "";
  if (sscanf(rest, "%31s %1s", word, junk) != 1)
    return fail(p, line, text, "want 'level N' with N one of 1, 2, 3, sunny, stormy, radioactive");
  if (p->level_line) return fail(p, line, text, "level already set on line %u", p->level_line);
  for (int i = 0; i < 3; i++) {
    char digit[2] = { (char)('1' + i), '\0' };
    if (!strcmp(word, digit) || !strcmp(word, names[i])) {
      p->s->level = i + 1;
      p->level_line = line;
      return 0;
    }
  }
  return fail(p, line, text, "unknown level '%s' (want 1, 2, 3, sunny, stormy or radioactive)", word);
}

/* "option KEY=VALUE" and "env KEY=VALUE": one word each.  An option's value
 * may not hold ':' or blanks, which separate DETSIM_OPTIONS entries. */
static int parse_setting(struct parser *p, unsigned line, const char *text, const char *rest, bool env) {
  const char *kw = env ? "env" : "option";
  while (is_blank(*rest)) rest++;
  const char *eq = strchr(rest, '=');
  size_t kn = eq ? (size_t)(eq - rest) : 0;
  bool key_ok = kn > 0;
  for (size_t i = 0; i < kn; i++) {
    char ch = rest[i];
    bool alpha = (ch >= 'a' && ch <= 'z') || ch == '_' || (env && ch >= 'A' && ch <= 'Z');
    if (!alpha && !(i > 0 && ch >= '0' && ch <= '9')) key_ok = false;
  }
  if (!key_ok) return fail(p, line, text, "want '%s KEY=VALUE'", kw);
  const char *value = eq + 1;
  size_t vn = strlen(value);
  while (vn && is_blank(value[vn - 1])) vn--;
  for (size_t i = 0; i < vn; i++)
    if (is_blank(value[i]) || value[i] == '\'' || value[i] == '"' || (!env && value[i] == ':'))
      return fail(p, line, text, "%s value may not contain blanks, quotes%s", kw, env ? "" : " or ':'");
  char ***list = env ? &p->s->env : &p->s->options;
  unsigned *n = env ? &p->s->n_env : &p->s->n_options;
  if (p->s->n_env + p->s->n_options >= ST_SCENARIO_SETTINGS_MAX)
    return fail(p, line, text, "more than %u option and env lines", ST_SCENARIO_SETTINGS_MAX);
  *list = st_xrealloc(*list, sizeof **list * (*n + 1));
  (*list)[(*n)++] = st_xasprintf("%.*s=%.*s", (int)kn, rest, (int)vn, value);
  return 0;
}

/* "protect NAME...": servers (by node or group name, declared above) that
 * crash faults never pick, such as a primary whose state is not durable. */
static int parse_protect(struct parser *p, unsigned line, const char *text, const char *rest) {
  char name[64];
  int used, words = 0;
  while (sscanf(rest, " %63s%n", name, &used) == 1) {
    rest += used;
    words++;
    bool found = false;
    for (unsigned j = 0; j < p->s->n_nodes; j++) {
      struct st_scenario_node *node = &p->s->nodes[j];
      if (strcmp(node->name, name) != 0 && strcmp(node->group, name) != 0) continue;
      if (node->client) return fail(p, line, text, "'%s' is a client: clients never crash, protect names servers", name);
      node->protect = true;
      found = true;
    }
    if (!found) return fail(p, line, text, "no server or group named '%s' above this line", name);
  }
  if (words == 0) return fail(p, line, text, "want 'protect NAME...' (servers or groups declared above)");
  return 0;
}

/* "data NAME PATH": the data directory of a node (or of every node of a
 * group) declared above, relative to its own directory, which it narrows
 * (docs/disk.md): files outside it are not on the simulated disk. */
static int parse_data(struct parser *p, unsigned line, const char *text, const char *rest) {
  char name[64], path[ST_SCENARIO_LINE_BYTES_MAX + 1], extra[2];
  int n = sscanf(rest, " %63s %4096s %1s", name, path, extra);
  if (n != 2) return fail(p, line, text, "want 'data NAME PATH' (a node or group declared above, a relative path)");
  if (path[0] == '/') return fail(p, line, text, "data %s: the path is relative to the node's own directory", path);
  for (const char *c = path; *c;) {
    size_t k = strcspn(c, "/");
    if (k == 2 && c[0] == '.' && c[1] == '.')
      return fail(p, line, text, "data %s: '..' would leave the node's own directory", path);
    c += k + (c[k] == '/');
  }
  bool found = false;
  for (unsigned j = 0; j < p->s->n_nodes; j++) {
    struct st_scenario_node *node = &p->s->nodes[j];
    if (strcmp(node->name, name) != 0 && strcmp(node->group, name) != 0) continue;
    free(node->data);
    node->data = st_xstrdup(path);
    found = true;
  }
  if (!found) return fail(p, line, text, "no node or group named '%s' above this line", name);
  return 0;
}

/* "start NAME... after NODE listens": those nodes (or groups, declared
 * above) start only once NODE has a listening socket, so a client that
 * dials at once finds its server.  One such rule per node; no cycles (a
 * node waiting on itself, through others or not, would never start). */
static int parse_start(struct parser *p, unsigned line, const char *text, const char *rest) {
  static const char want[] = "want 'start NAME... after NODE listens' (nodes or groups declared above)";
  char words[ST_SCENARIO_NODES_MAX + 3][64];
  unsigned n = 0;
  int used;
  while (n < ST_SCENARIO_NODES_MAX + 3 && sscanf(rest, " %63s%n", words[n], &used) == 1) {
    rest += used;
    n++;
  }
  char extra[2];
  if (sscanf(rest, " %1s", extra) == 1) return fail(p, line, text, "too many names (at most %d)", ST_SCENARIO_NODES_MAX);
  if (n < 4 || strcmp(words[n - 3], "after") != 0 || strcmp(words[n - 1], "listens") != 0)
    return fail(p, line, text, "%s", want);
  const char *target = words[n - 2];
  int t = -1;
  for (unsigned j = 0; j < p->s->n_nodes; j++)
    if (!strcmp(p->s->nodes[j].name, target)) t = (int)j;
  if (t < 0) return fail(p, line, text, "no node named '%s' above this line (after names one node)", target);
  for (unsigned w = 0; w + 3 < n; w++) {
    bool found = false;
    for (unsigned j = 0; j < p->s->n_nodes; j++) {
      struct st_scenario_node *node = &p->s->nodes[j];
      if (strcmp(node->name, words[w]) != 0 && strcmp(node->group, words[w]) != 0) continue;
      found = true;
      if ((int)j == t) return fail(p, line, text, "node '%s' cannot start after its own listen", node->name);
      if (node->after1)
        return fail(p, line, text, "node '%s' already starts after %s listens (line %u)", node->name,
                    p->s->nodes[node->after1 - 1].name, node->after_line);
      /* The chain from the target: each node has at most one, so it
       * either ends or comes back here. */
      for (unsigned k = (unsigned)t + 1, steps = 0; k && steps <= p->s->n_nodes; k = p->s->nodes[k - 1].after1, steps++)
        if (k - 1 == j)
          return fail(p, line, text, "a cycle: '%s' would wait for '%s', which waits (through 'after') for '%s'",
                      node->name, target, node->name);
      node->after1 = (unsigned)t + 1;
      node->after_line = line;
    }
    if (!found) return fail(p, line, text, "no node or group named '%s' above this line", words[w]);
  }
  return 0;
}

static int parse_line(struct parser *p, unsigned line, char *text) {
  if (cut_comment(text) != 0) return fail(p, line, text, "unterminated quote");
  char word[16] = "";
  int skip = 0;
  if (sscanf(text, " %15[^ \t\r:]%n", word, &skip) != 1) {
    for (const char *c = text; *c; c++)
      if (!is_blank(*c)) return fail(p, line, text, "expected a directive");
    return 0; /* blank or comment only */
  }
  const char *rest = text + skip;
  if (!strcmp(word, "server") || !strcmp(word, "client"))
    return parse_node_line(p, line, text, rest, word[0] == 'c');
  if (!strcmp(word, "level")) return parse_level(p, line, text, rest);
  if (!strcmp(word, "option") || !strcmp(word, "env")) return parse_setting(p, line, text, rest, word[0] == 'e');
  if (!strcmp(word, "protect")) return parse_protect(p, line, text, rest);
  if (!strcmp(word, "data")) return parse_data(p, line, text, rest);
  if (!strcmp(word, "start")) return parse_start(p, line, text, rest);
  return fail(p, line, text, "unknown directive '%s' (want server, client, level, option, env, protect, data or start)",
              word);
}

/* Splits data into NUL-terminated lines in place and parses each. */
static int parse_lines(struct parser *p, char *data, size_t len) {
  if (memchr(data, '\0', len)) {
    const char *nul = memchr(data, '\0', len);
    unsigned line = 1;
    for (const char *c = data; c < nul; c++) line += *c == '\n';
    return fail(p, line, NULL, "NUL byte: not a text file");
  }
  unsigned line = 0;
  for (char *c = data; c < data + len;) {
    char *nl = memchr(c, '\n', (size_t)(data + len - c));
    char *end = nl ? nl : data + len;
    line++;
    if ((size_t)(end - c) > ST_SCENARIO_LINE_BYTES_MAX)
      return fail(p, line, NULL, "line longer than %u bytes", ST_SCENARIO_LINE_BYTES_MAX);
    *end = '\0';
    if (parse_line(p, line, c) != 0) return -1;
    c = end + 1;
  }
  for (unsigned i = 0; i < p->s->n_nodes; i++)
    if (p->s->nodes[i].client) return 0;
  return fail(p, line ? line : 1, NULL, "no client: a scenario needs at least one 'client' line");
}

int st_scenario_load(const char *path, struct st_scenario *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  out->path = st_xstrdup(path);
  struct parser p = { .path = path, .s = out, .err = err, .errlen = errlen };
  char *data = NULL;
  size_t len = 0;
  int rc = -1;
  if (st_read_file(path, ST_SCENARIO_FILE_BYTES_MAX, &data, &len) != 0) {
    if (errno == EFBIG) fail(&p, 0, NULL, "larger than %u bytes: not a scenario", ST_SCENARIO_FILE_BYTES_MAX);
    else fail(&p, 0, NULL, "cannot read: %s", strerror(errno));
    goto out;
  }
  char *copy = st_xstrdup(path), *slash = strrchr(copy, '/');
  char abs[PATH_MAX];
  if (slash == copy) slash[1] = '\0';
  else if (slash) *slash = '\0';
  p.dir = st_xstrdup(realpath(slash ? copy : ".", abs) ? abs : (slash ? copy : "."));
  free(copy);
  if (parse_lines(&p, data, len) != 0) goto out;
  for (unsigned gi = 0; gi < p.n_groups; gi++) {
    const struct group *g = &p.groups[gi];
    for (unsigned i = 0; i < g->count; i++) {
      struct st_scenario_node *node = &out->nodes[g->first + i];
      if (split_command(&p, g, node) != 0 || resolve_program(&p, g, node) != 0) goto out;
    }
  }
  rc = 0;
out:
  free(data);
  free(p.dir);
  if (rc != 0) st_scenario_free(out);
  return rc;
}

void st_scenario_free(struct st_scenario *s) {
  for (unsigned i = 0; i < s->n_nodes; i++) {
    struct st_scenario_node *n = &s->nodes[i];
    free(n->program);
    free(n->data);
    for (unsigned a = 0; n->argv && a < n->argc; a++) free(n->argv[a]);
    free(n->argv);
  }
  for (unsigned i = 0; i < s->n_options; i++) free(s->options[i]);
  for (unsigned i = 0; i < s->n_env; i++) free(s->env[i]);
  free(s->options);
  free(s->env);
  free(s->path);
  memset(s, 0, sizeof *s);
}

bool st_scenario_sniff(const char *path) {
  char *data = NULL;
  size_t len = 0;
  if (st_read_file(path, ST_SCENARIO_FILE_BYTES_MAX, &data, &len) != 0) return false;
  bool yes = false;
  if (!memchr(data, '\0', len)) {
    for (char *c = data; c < data + len;) {
      char *nl = strchr(c, '\n');
      if (nl) *nl = '\0';
      if (cut_comment(c) != 0) break;
      char word[16] = "", arg[ST_SCENARIO_LINE_BYTES_MAX + 1];
      int n = sscanf(c, " %15[^ \t\r:]%4096s", word, arg);
      if (n >= 1) {
        if (!strcmp(word, "server") || !strcmp(word, "client")) yes = strchr(c, ':') != NULL;
        else if (!strcmp(word, "level")) yes = n == 2;
        else if (!strcmp(word, "option") || !strcmp(word, "env")) yes = n == 2 && strchr(arg, '=');
        break;
      }
      if (!nl) break;
      c = nl + 1;
    }
  }
  free(data);
  return yes;
}
