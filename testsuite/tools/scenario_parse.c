/* Tests of the scenario loader (tools/common/st_scenario.c).
 *
 *   scenario_parse            (run from a scratch directory: CTest's is the
 *                              test's build directory)
 *
 * Writes scenarios and stand-in programs into a fresh temporary directory,
 * loads them, and checks the result field by field: node names, groups,
 * indexes, argv after quoting and placeholder expansion, program
 * resolution (scenario directory, PATH, relative paths), level, options and
 * env.  Then a table of bad scenarios: each must fail with "FILE:LINE: " (the
 * right line) and a message naming the problem, and leave nothing behind.
 * Exit 0 when every check holds, 1 otherwise (each failure printed).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "st_scenario.h"
#include "st_util.h"

static int failures, checks;
static char dir[PATH_MAX];

#define CHECK(cond) \
  do { \
    checks++; \
    if (!(cond)) { \
      failures++; \
      fprintf(stderr, "scenario_parse:%d: CHECK(%s) failed\n", __LINE__, #cond); \
    } \
  } while (0)
#define CHECK_STR(a, b) \
  do { \
    const char *a_ = (a), *b_ = (b); \
    checks++; \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) { \
      failures++; \
      fprintf(stderr, "scenario_parse:%d: %s == %s failed: '%s' vs '%s'\n", __LINE__, #a, #b, a_ ? a_ : "(null)", \
              b_ ? b_ : "(null)"); \
    } \
  } while (0)
#define CHECK_EQ(a, b) \
  do { \
    long long a_ = (long long)(a), b_ = (long long)(b); \
    checks++; \
    if (a_ != b_) { \
      failures++; \
      fprintf(stderr, "scenario_parse:%d: %s == %s failed: %lld vs %lld\n", __LINE__, #a, #b, a_, b_); \
    } \
  } while (0)

static char *path_in(const char *name) { return st_xasprintf("%s/%s", dir, name); }

static void write_file(const char *name, const char *text, size_t len, mode_t mode) {
  char *p = path_in(name);
  FILE *f = fopen(p, "w");
  if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) st_die(1, "cannot write %s", p);
  chmod(p, mode);
  free(p);
}

static void write_text(const char *name, const char *text) { write_file(name, text, strlen(text), 0644); }

static void check_argv(const struct st_scenario_node *n, const char *const *want) {
  unsigned i = 0;
  for (; want[i]; i++) {
    if (i >= n->argc) break;
    CHECK_STR(n->argv[i], want[i]);
  }
  CHECK_EQ(n->argc, i);
  CHECK(n->argv[n->argc] == NULL);
}

static char *realpath_of(const char *p) {
  char buf[PATH_MAX];
  return st_xstrdup(realpath(p, buf) ? buf : "(unresolvable)");
}

/* The format's own example, with an option and an env line. */
static void test_kv(void) {
  write_text("kv.scenario", "# kv.scenario\n"
                            "level 2                                    # optional default level\n"
                            "option watchdog_s=30\n"
                            "\n"
                            "env KV_MODE=fast\n"
                            "server kv x3: kv_server {name} 7000 {kv:7000}\n"
                            "client load: kv_client 200 {kv:7000}\n");
  char *path = path_in("kv.scenario"), err[512] = "";
  struct st_scenario s;
  CHECK_EQ(st_scenario_load(path, &s, err, sizeof err), 0);
  if (err[0]) fprintf(stderr, "scenario_parse: kv.scenario: %s\n", err);
  CHECK_STR(s.path, path);
  CHECK_EQ(s.level, 2);
  CHECK_EQ(s.n_nodes, 4);
  CHECK_EQ(s.n_options, 1);
  if (s.n_options == 1) CHECK_STR(s.options[0], "watchdog_s=30");
  CHECK_EQ(s.n_env, 1);
  if (s.n_env == 1) CHECK_STR(s.env[0], "KV_MODE=fast");
  char *server = path_in("kv_server"), *client = path_in("kv_client");
  char *server_abs = realpath_of(server), *client_abs = realpath_of(client);
  const char *names[] = { "kv1", "kv2", "kv3", "load" };
  for (unsigned i = 0; i < 4 && i < s.n_nodes; i++) {
    const struct st_scenario_node *n = &s.nodes[i];
    CHECK_STR(n->name, names[i]);
    CHECK_STR(n->group, i < 3 ? "kv" : "load");
    CHECK_EQ(n->index, i < 3 ? i + 1 : 1);
    CHECK_EQ(n->client, i == 3);
    CHECK_EQ(n->line, i < 3 ? 6 : 7);
    CHECK_STR(n->program, i < 3 ? server_abs : client_abs);
    if (i < 3) check_argv(n, (const char *[]){ "kv_server", names[i], "7000", "kv1:7000,kv2:7000,kv3:7000", NULL });
    else check_argv(n, (const char *[]){ "kv_client", "200", "kv1:7000,kv2:7000,kv3:7000", NULL });
  }
  CHECK(st_scenario_sniff(path));
  st_scenario_free(&s);
  CHECK_EQ(s.n_nodes, 0);
  CHECK(s.path == NULL);
  free(path), free(server), free(client), free(server_abs), free(client_abs);
}

/* `protect` by node name and by group: only the named servers. */
static void test_protect(void) {
  write_text("p.scenario", "server kv x3: kv_server {name}\n"
                           "server db x2: kv_server {name}\n"
                           "client load: kv_client\n"
                           "protect kv1 db\n");
  char *path = path_in("p.scenario"), err[512] = "";
  struct st_scenario s;
  CHECK_EQ(st_scenario_load(path, &s, err, sizeof err), 0);
  if (err[0]) fprintf(stderr, "scenario_parse: p.scenario: %s\n", err);
  CHECK_EQ(s.n_nodes, 6);
  const bool want[] = { true, false, false, true, true, false };
  for (unsigned i = 0; i < 6 && i < s.n_nodes; i++) CHECK_EQ(s.nodes[i].protect, want[i]);
  st_scenario_free(&s);
  free(path);
}

/* `start NAME... after NODE listens`: by node and by group, chains. */
static void test_start_after(void) {
  write_text("a.scenario", "server db: kv_server\n"
                           "server kv x2: kv_server {name}\n"
                           "client load: kv_client\n"
                           "start kv after db listens\n"
                           "start load after kv2 listens\n");
  char *path = path_in("a.scenario"), err[512] = "";
  struct st_scenario s;
  CHECK_EQ(st_scenario_load(path, &s, err, sizeof err), 0);
  if (err[0]) fprintf(stderr, "scenario_parse: a.scenario: %s\n", err);
  CHECK_EQ(s.n_nodes, 4);
  const unsigned want[] = { 0, 1, 1, 3 }; /* 1 + the index of the node each waits for */
  for (unsigned i = 0; i < 4 && i < s.n_nodes; i++) CHECK_EQ(s.nodes[i].after1, want[i]);
  CHECK_EQ(s.nodes[3].after_line, 5);
  st_scenario_free(&s);
  free(path);
}

/* Quoting, braces, a forward reference, {index}, PATH and relative paths,
 * a level by name, comments after quotes. */
static void test_quoting(void) {
  write_text("q.scenario", "level stormy\n"
                           "client c: sh -c 'echo {name} \"#1\" {{x}}' \"a \\\"q\\\" {index}\" {srv} {srv:80} {{{index}}} # note\n"
                           "  server\tsrv x2 :  ./bin/tool --peer={srv:9000} \"#\"'{name}'\n");
  char *path = path_in("q.scenario"), err[512] = "";
  struct st_scenario s;
  CHECK_EQ(st_scenario_load(path, &s, err, sizeof err), 0);
  if (err[0]) fprintf(stderr, "scenario_parse: q.scenario: %s\n", err);
  CHECK_EQ(s.level, 2);
  CHECK_EQ(s.n_nodes, 3);
  CHECK_EQ(s.n_options + s.n_env, 0);
  if (s.n_nodes == 3) {
    char *sh = st_find_program("sh"), *sh_abs = realpath_of(sh), *tool = path_in("bin/tool");
    char *tool_abs = realpath_of(tool);
    CHECK_STR(s.nodes[0].name, "c");
    CHECK_EQ(s.nodes[0].index, 1);
    CHECK(s.nodes[0].client);
    CHECK_STR(s.nodes[0].program, sh_abs);
    check_argv(&s.nodes[0], (const char *[]){ "sh", "-c", "echo {name} \"#1\" {{x}}", "a \"q\" 1", "srv1,srv2",
                                              "srv1:80,srv2:80", "{1}", NULL });
    for (unsigned i = 1; i < 3; i++) {
      CHECK_STR(s.nodes[i].group, "srv");
      CHECK_EQ(s.nodes[i].index, i);
      CHECK(!s.nodes[i].client);
      CHECK_EQ(s.nodes[i].line, 3);
      CHECK_STR(s.nodes[i].program, tool_abs);
    }
    CHECK_STR(s.nodes[1].name, "srv1");
    check_argv(&s.nodes[2], (const char *[]){ "./bin/tool", "--peer=srv1:9000,srv2:9000", "#{name}", NULL });
    free(sh), free(sh_abs), free(tool), free(tool_abs);
  }
  st_scenario_free(&s);
  free(path);
}

struct bad {
  const char *text;
  unsigned line; /* 0: an error about the file as a whole */
  const char *problem;
};

static const struct bad bad_cases[] = {
  { "server kv x3 kv_server {kv:7000}\nclient c: kv_client\n", 1, "missing ':'" },
  { "client c: kv_client\nserve kv: kv_server\n", 2, "unknown directive 'serve'" },
  { "protect kv1\nserver kv x2: kv_server\nclient c: kv_client\n", 1, "no server or group named 'kv1' above this line" },
  { "server kv x2: kv_server\nclient c: kv_client\nprotect kv3\n", 3, "no server or group named 'kv3' above this line" },
  { "server kv x2: kv_server\nclient c: kv_client\nprotect c\n", 3, "'c' is a client: clients never crash" },
  { "server kv x2: kv_server\nclient c: kv_client\nprotect   # nobody\n", 3, "want 'protect NAME...'" },
  { "server kv: kv_server\nclient c: kv_client\nstart c after kv\n", 3, "want 'start NAME... after NODE listens'" },
  { "server kv: kv_server\nclient c: kv_client\nstart after kv listens\n", 3, "want 'start NAME... after NODE listens'" },
  { "server kv: kv_server\nclient c: kv_client\nstart c after db listens\n", 3, "no node named 'db' above this line" },
  { "server kv x2: kv_server\nclient c: kv_client\nstart c after kv listens\n", 3, "no node named 'kv' above this line" },
  { "server kv: kv_server\nclient c: kv_client\nstart d after kv listens\n", 3, "no node or group named 'd' above" },
  { "server kv: kv_server\nclient c: kv_client\nstart kv after kv listens\n", 3, "'kv' cannot start after its own listen" },
  { "server kv: kv_server\nclient c: kv_client\nstart c after kv listens\nstart c after kv listens\n", 4,
    "'c' already starts after kv listens (line 3)" },
  { "server a: kv_server\nserver b: kv_server\nclient c: kv_client\nstart a after b listens\nstart b after a listens\n", 5,
    "a cycle: 'b' would wait for 'a', which waits (through 'after') for 'b'" },
  { "server a: kv_server\nserver b: kv_server\nclient c: kv_client\nstart a after b listens\nstart b after c listens\n"
    "start c after a listens\n", 6, "a cycle: 'c' would wait for 'a'" },
  { "client c: kv_client\nserver kv:\n", 2, "empty command" },
  { "client c: kv_client\nserver kv:   # nothing\n", 2, "empty command" },
  { "client c: ''\n", 1, "empty command" },
  { "server : kv_server\nclient c: kv_client\n", 1, "missing NAME" },
  { "server kv x0: kv_server\nclient c: kv_client\n", 1, "out of range" },
  { "server kv x65: kv_server\nclient c: kv_client\n", 1, "out of range" },
  { "server kv x3a: kv_server\nclient c: kv_client\n", 1, "bad replica count 'x3a'" },
  { "server kv 3: kv_server\nclient c: kv_client\n", 1, "bad replica count '3'" },
  { "server kv x: kv_server\nclient c: kv_client\n", 1, "bad replica count" },
  { "server Kv: kv_server\nclient c: kv_client\n", 1, "bad name 'Kv'" },
  { "server 1kv: kv_server\nclient c: kv_client\n", 1, "bad name '1kv'" },
  { "server name: kv_server\nclient c: kv_client\n", 1, "reserved" },
  { "server abcdefghijabcdefghijabcdefghijkl: kv_server\nclient c: kv_client\n", 1, "longer than 31" },
  { "client c: kv_client\nserver abcdefghijabcdefghijabcdefghij x10: kv_server\n", 2, "node name 'abcdefghijabcdefghijabcdefghij10' longer" },
  { "server kv x40: kv_server\n\nserver db x30: kv_server\nclient c: kv_client\n", 3, "too many nodes" },
  { "server kv x2: kv_server\nserver kv1: kv_server\nclient c: kv_client\n", 2, "duplicate node name 'kv1'" },
  { "server kv: kv_server\nclient kv: kv_client\n", 2, "already declared on line 1" },
  { "server kv: kv_server\n", 1, "no client" },
  { "server kv: kv_server\n# the end\n\n", 3, "no client" },
  { "", 1, "no client" },
  { "client c: kv_client {nope}\n", 1, "unknown placeholder {nope} at column 21" },
  { "client c: kv_client {nope:7000}\n", 1, "unknown group 'nope'" },
  { "client c: kv_client {c:0}\n", 1, "bad port" },
  { "client c: kv_client {c:70000}\n", 1, "bad port" },
  { "client c: kv_client {c:http}\n", 1, "bad port" },
  { "client c: kv_client {c:}\n", 1, "bad port" },
  { "client c: kv_client {name\n", 1, "unterminated placeholder" },
  { "client c: kv_client {na me}\n", 1, "unterminated placeholder" },
  { "client c: kv_client }\n", 1, "stray '}'" },
  { "client c: kv_client 'abc\n", 1, "unterminated quote" },
  { "client c: kv_client \"abc\\\"\n", 1, "unterminated quote" },
  { "client c: no-such-program-anywhere\n", 1, "program 'no-such-program-anywhere' not found" },
  { "client c: ./notexec\n", 1, "is not an executable file" },
  { "client c: notexec\n", 1, "is not an executable file" },
  { "client c: ./nothere\n", 1, "does not exist" },
  { "client c: bin\n", 1, "not" },
  { "client c: kv_client\nlevel 4\n", 2, "unknown level '4'" },
  { "level 1\nclient c: kv_client\nlevel 2\n", 3, "level already set on line 1" },
  { "level\nclient c: kv_client\n", 1, "want 'level N'" },
  { "level 1 2\nclient c: kv_client\n", 1, "want 'level N'" },
  { "option watchdog_s\nclient c: kv_client\n", 1, "want 'option KEY=VALUE'" },
  { "option =1\nclient c: kv_client\n", 1, "want 'option KEY=VALUE'" },
  { "option a=b:c\nclient c: kv_client\n", 1, "may not contain" },
  { "env 1A=b\nclient c: kv_client\n", 1, "want 'env KEY=VALUE'" },
  { "env A=b c\nclient c: kv_client\n", 1, "may not contain" },
};

static void test_bad(const struct bad *b, unsigned i) {
  char *name = st_xasprintf("bad%u.scenario", i), *path = path_in(name), err[1024] = "";
  write_text(name, b->text);
  struct st_scenario s;
  memset(&s, 0xa5, sizeof s);
  int rc = st_scenario_load(path, &s, err, sizeof err);
  CHECK_EQ(rc, -1);
  CHECK_EQ(s.n_nodes, 0);
  CHECK(s.path == NULL && s.options == NULL && s.env == NULL);
  char *prefix = b->line ? st_xasprintf("%s:%u: ", path, b->line) : st_xasprintf("%s: ", path);
  if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, b->problem)) {
    failures++;
    fprintf(stderr, "scenario_parse: bad case %u: want '%s...%s', got '%s'\n", i, prefix, b->problem, err);
  }
  checks++;
  free(prefix), free(path), free(name);
}

/* Cases the table cannot write as one string: sizes, bytes, a missing file. */
static void test_bad_files(void) {
  struct bad cases[] = {
    { NULL, 2, "line longer than 4096 bytes" },
    { NULL, 0, "larger than 1048576 bytes" },
    { NULL, 3, "NUL byte" },
    { NULL, 0, "cannot read" },
  };
  size_t big = 2u << 20;
  char *text = st_xmalloc(big);
  memset(text, '#', big);
  memcpy(text, "client c: kv_client\n#", 21);
  text[21 + 5000] = '\n';
  write_file("long.scenario", text, 21 + 5001, 0644);
  write_file("huge.scenario", text, big, 0644);
  static const char nul[] = "client c: kv_client\n\nenv A=\0b\n";
  write_file("nul.scenario", nul, sizeof nul - 1, 0644);
  free(text);
  const char *files[] = { "long.scenario", "huge.scenario", "nul.scenario", "missing.scenario" };
  for (unsigned i = 0; i < 4; i++) {
    char *path = path_in(files[i]), err[1024] = "";
    struct st_scenario s;
    CHECK_EQ(st_scenario_load(path, &s, err, sizeof err), -1);
    char *prefix = cases[i].line ? st_xasprintf("%s:%u: ", path, cases[i].line) : st_xasprintf("%s: ", path);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, cases[i].problem)) {
      failures++;
      fprintf(stderr, "scenario_parse: %s: want '%s...%s', got '%s'\n", files[i], prefix, cases[i].problem, err);
    }
    checks++;
    CHECK(st_scenario_sniff(path) == (i == 0)); /* a scenario with an error is still a scenario */
    free(prefix), free(path);
  }
}

static void test_sniff(const char *self) {
  write_text("s1.scenario", "#!/bin/sh\n\n   # comment\nenv A=b\n");
  write_text("s2.scenario", "level 1\n");
  write_text("s3.scenario", "client c: x\n");
  write_text("script.sh", "#!/bin/sh\necho hello\n");
  write_text("s4.scenario", "env\n");
  write_text("s5.scenario", "server kv x3 kv_server\n");
  const char *yes[] = { "s1.scenario", "s2.scenario", "s3.scenario" };
  const char *no[] = { "script.sh", "s4.scenario", "s5.scenario", "missing" };
  for (unsigned i = 0; i < 3; i++) {
    char *p = path_in(yes[i]);
    CHECK(st_scenario_sniff(p));
    free(p);
  }
  for (unsigned i = 0; i < 4; i++) {
    char *p = path_in(no[i]);
    CHECK(!st_scenario_sniff(p));
    free(p);
  }
  CHECK(!st_scenario_sniff(self)); /* an executable */
}

int main(int argc, char **argv) {
  (void)argc;
  st_prog = "scenario_parse";
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) st_die(1, "getcwd failed");
  snprintf(dir, sizeof dir, "%s/scenario_parse.XXXXXX", cwd);
  if (!mkdtemp(dir)) st_die(1, "mkdtemp %s failed", dir);
  char *bindir = path_in("bin");
  mkdir(bindir, 0755);
  free(bindir);
  write_file("kv_server", "#!/bin/sh\n", 10, 0755);
  write_file("kv_client", "#!/bin/sh\n", 10, 0755);
  write_file("bin/tool", "#!/bin/sh\n", 10, 0755);
  write_file("notexec", "#!/bin/sh\n", 10, 0644);

  test_kv();
  test_protect();
  test_start_after();
  test_quoting();
  for (unsigned i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) test_bad(&bad_cases[i], i);
  test_bad_files();
  test_sniff(argv[0]);

  if (failures) {
    fprintf(stderr, "scenario_parse: %d of %d checks failed (files kept in %s)\n", failures, checks, dir);
    return 1;
  }
  char *rm = st_xasprintf("rm -rf '%s'", dir);
  if (system(rm) != 0) fprintf(stderr, "scenario_parse: could not remove %s\n", dir);
  free(rm);
  printf("scenario_parse: %d checks ok (%zu bad scenarios)\n", checks, sizeof bad_cases / sizeof *bad_cases + 4);
  return 0;
}
