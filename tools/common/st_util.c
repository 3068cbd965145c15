/* Small helpers shared by simrun and simreplay (see st_util.h). */
#include "st_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *st_prog = "simtools";

_Noreturn void st_die(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", st_prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(status);
}

void st_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: warning: ", st_prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void *st_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) st_die(ST_EXIT_HARNESS, "out of memory (%zu bytes)", n);
  return p;
}

void *st_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) st_die(ST_EXIT_HARNESS, "out of memory (%zu x %zu bytes)", n, size);
  return p;
}

void *st_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) st_die(ST_EXIT_HARNESS, "out of memory (%zu bytes)", n);
  return q;
}

char *st_xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = st_xmalloc(n);
  memcpy(p, s, n);
  return p;
}

char *st_xasprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0) st_die(ST_EXIT_HARNESS, "out of memory");
  return s;
}

void st_buf_add(struct st_buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n + 1) cap *= 2;
    b->s = st_xrealloc(b->s, cap);
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

void st_buf_puts(struct st_buf *b, const char *s) { st_buf_add(b, s, strlen(s)); }

void st_buf_printf(struct st_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0) st_die(ST_EXIT_HARNESS, "out of memory");
  st_buf_add(b, s, (size_t)n);
  free(s);
}

void st_buf_free(struct st_buf *b) {
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}

double st_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool st_parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s) return false;
  uint64_t x = 0;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9') return false;
    unsigned d = (unsigned)(*p - '0');
    if (x > (UINT64_MAX - d) / 10) return false;
    x = x * 10 + d;
  }
  *out = x;
  return true;
}

static bool shell_plain(const char *w) {
  if (!*w) return false;
  for (const char *p = w; *p; p++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%", *p)) return false;
  return true;
}

void st_shell_quote(struct st_buf *b, const char *word) {
  if (shell_plain(word)) {
    st_buf_puts(b, word);
    return;
  }
  st_buf_puts(b, "'");
  for (const char *p = word; *p; p++) {
    if (*p == '\'') st_buf_puts(b, "'\\''");
    else st_buf_add(b, p, 1);
  }
  st_buf_puts(b, "'");
}

void st_shell_join(struct st_buf *b, char *const *argv) {
  for (int i = 0; argv[i]; i++) {
    if (i) st_buf_puts(b, " ");
    st_shell_quote(b, argv[i]);
  }
}

int st_shell_split(const char *line, char ***words) {
  int n = 0, cap = 8;
  char **w = st_xmalloc(sizeof *w * (size_t)cap);
  const char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (!*p) break;
    struct st_buf word = { 0 };
    st_buf_puts(&word, "");
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
      if (*p == '\'') {
        const char *end = strchr(p + 1, '\'');
        if (!end) goto unterminated;
        st_buf_add(&word, p + 1, (size_t)(end - p - 1));
        p = end + 1;
      } else if (*p == '"') {
        p++;
        while (*p && *p != '"') {
          if (*p == '\\' && p[1] && strchr("\"\\$`", p[1])) p++;
          st_buf_add(&word, p, 1);
          p++;
        }
        if (*p != '"') goto unterminated;
        p++;
      } else if (*p == '\\' && p[1]) {
        st_buf_add(&word, p + 1, 1);
        p += 2;
      } else {
        st_buf_add(&word, p, 1);
        p++;
      }
      continue;
    unterminated:
      st_buf_free(&word);
      for (int i = 0; i < n; i++) free(w[i]);
      free(w);
      return -1;
    }
    if (n + 2 > cap) w = st_xrealloc(w, sizeof *w * (size_t)(cap *= 2));
    w[n++] = word.s;
  }
  w[n] = NULL;
  *words = w;
  return n;
}

char *st_find_program(const char *name) {
  if (strchr(name, '/')) return access(name, F_OK) == 0 ? st_xstrdup(name) : NULL;
  const char *path = getenv("PATH");
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *end = strchr(path, ':');
    size_t n = end ? (size_t)(end - path) : strlen(path);
    char *cand = st_xasprintf("%.*s/%s", (int)n, n ? path : ".", name);
    struct stat st;
    if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) return cand;
    free(cand);
    if (!end) break;
    path = end + 1;
  }
  return NULL;
}

const char *st_basename(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

int st_read_file(const char *path, uint64_t max, char **data, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0) goto fail;
  if (S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    goto fail;
  }
  if ((uint64_t)st.st_size > max) {
    errno = EFBIG;
    goto fail;
  }
  size_t cap = (size_t)st.st_size + 1, n = 0;
  char *buf = st_xmalloc(cap);
  for (;;) {
    if (n + 1 >= cap) {
      if (cap > max) {
        free(buf);
        errno = EFBIG;
        goto fail;
      }
      buf = st_xrealloc(buf, cap *= 2);
    }
    ssize_t k = read(fd, buf + n, cap - 1 - n);
    if (k < 0) {
      if (errno == EINTR) continue;
      free(buf);
      goto fail;
    }
    if (k == 0) break;
    n += (size_t)k;
  }
  buf[n] = '\0';
  close(fd);
  *data = buf;
  *len = n;
  return 0;
fail:;
  int e = errno;
  close(fd);
  errno = e;
  return -1;
}

static char *tmpdir_path;

static void remove_tree(const char *path) {
  DIR *d = opendir(path);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char *p = st_xasprintf("%s/%s", path, e->d_name);
    unlink(p);
    free(p);
  }
  closedir(d);
  rmdir(path);
}

void st_tmpdir_cleanup(void) {
  if (!tmpdir_path) return;
  remove_tree(tmpdir_path);
  free(tmpdir_path);
  tmpdir_path = NULL;
}

const char *st_tmpdir(void) {
  if (tmpdir_path) return tmpdir_path;
  const char *base = getenv("TMPDIR");
  if (!base || !*base) base = "/tmp";
  char *p = st_xasprintf("%s/%s.XXXXXX", base, st_prog);
  if (!mkdtemp(p)) st_die(ST_EXIT_HARNESS, "cannot make a temporary directory under %s: %s", base, strerror(errno));
  tmpdir_path = p;
  atexit(st_tmpdir_cleanup);
  return tmpdir_path;
}
