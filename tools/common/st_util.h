/* Small helpers shared by simrun and simreplay: messages and exits,
 * allocation that cannot fail silently, a growable string, time, shell
 * quoting and splitting, and finding a program on PATH.
 *
 * Rules: every message goes to stderr prefixed with the tool's name
 * (st_prog); an error exits with one of the statuses below, which both
 * tools document in --help.
 */
#ifndef ST_UTIL_H
#define ST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit statuses common to both tools. */
#define ST_EXIT_OK 0       /* everything passed / replayed */
#define ST_EXIT_FINDINGS 1 /* simrun: some seed failed; simreplay --compare: a release build carries detsim */
#define ST_EXIT_USAGE 2    /* bad command line or input file: nothing was judged */
#define ST_EXIT_HARNESS 3  /* the program is not a simulation build, or cannot be run */

extern const char *st_prog; /* "simrun" or "simreplay", set by main */

_Noreturn void st_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void st_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *st_xmalloc(size_t n);
void *st_xcalloc(size_t n, size_t size);
void *st_xrealloc(void *p, size_t n);
char *st_xstrdup(const char *s);
char *st_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable NUL-terminated string. */
struct st_buf {
  char *s;
  size_t len, cap;
};
void st_buf_add(struct st_buf *b, const char *s, size_t n);
void st_buf_puts(struct st_buf *b, const char *s);
void st_buf_printf(struct st_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void st_buf_free(struct st_buf *b);

/* Monotonic seconds. */
double st_now(void);

/* Parses a whole decimal u64 ("007" fine, "", "-1", "1x", overflow not). */
bool st_parse_u64(const char *s, uint64_t *out);

/* Appends `word` quoted for a POSIX shell when it needs it (the same rule
 * as the runtime's first line: plain words stay as they are). */
void st_shell_quote(struct st_buf *b, const char *word);
/* Appends argv as a shell command line. */
void st_shell_join(struct st_buf *b, char *const *argv);
/* Splits a shell command line (quotes '…' "…", backslash) into words.
 * Returns the count (words NULL-terminated, malloc'd), or -1 on an
 * unterminated quote. */
int st_shell_split(const char *line, char ***words);

/* The file PATH lookup would execute for `name` (a name with a '/' is taken
 * as it is).  NULL when not found; the result is malloc'd. */
char *st_find_program(const char *name);

/* The last path component. */
const char *st_basename(const char *path);

/* Reads a whole file (at most max bytes; -1 and errno=EFBIG beyond). */
int st_read_file(const char *path, uint64_t max, char **data, size_t *len);

/* Makes a private temporary directory (removed by st_tmpdir_cleanup, also
 * at exit); returns its path. */
const char *st_tmpdir(void);
void st_tmpdir_cleanup(void);

#endif
