/* stdio streams whose I/O goes through the simulation (see libc/libc.h).
 *
 * Each stream is a glibc cookie stream (fopencookie) over one descriptor:
 *  - read and write are the interceptors' (a simulated descriptor blocks,
 *    gives EINTR and EAGAIN as the simulation does; a real one is the
 *    kernel's, and a write to it is output, trace/trace.h);
 *  - a write callback writes everything or stops at the first error, as
 *    glibc's own file streams do (a cookie stream's short write would set
 *    the error flag at once);
 *  - seek is lseek on a real descriptor, ESPIPE on a simulated one;
 *  - close closes the descriptor (fclose of an fdopen stream, and of
 *    stdout, closes it natively too);
 *  - the FILE's _fileno is the descriptor, so fileno() and
 *    fileno_unlocked() answer it, as for glibc's own streams (a cookie
 *    stream has -2 there, which glibc treats as "open");
 *  - buffering is what glibc would choose: full, in blocks of st_blksize
 *    (4096 for sockets and pipes) when smaller than BUFSIZ; a terminal's
 *    stdin and stdout are line-buffered; stderr is unbuffered.
 * glibc's stream lock is a real lock, held across these callbacks: so they
 * are no preemption points (libc/libc.h), and only a thread that must wait
 * in a stream on a simulated descriptor (a full pipe, no data yet) lets
 * others run while it holds the lock; one of them using the same stream
 * meanwhile waits in the kernel (the watchdog names it).
 */
#include "sanitize/sanitize.h"
#include "libc/libc.h"
#include "machine/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#include "disk/disk.h"
#include "limits.h"
#include "net/net.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "trace/trace.h"

struct sim_stream {
  FILE *fp;
  int fd;
  char *own_buf; /* the buffer given to setvbuf, freed at close (NULL: none, or a standard stream's) */
  bool standard; /* stdin, stdout or stderr: static, never freed */
  bool used;     /* has read or written (a standard stream's buffering is then settled) */
  bool wide;     /* its first output was wide (wprintf and the like) */
};

/* The fdopen streams alive, for freopen (stream_of). */
static struct sim_stream *open_streams[DETSIM_STDIO_SIM_STREAMS_MAX];
static unsigned open_streams_n;

static bool remember(struct sim_stream *s) {
  if (open_streams_n >= DETSIM_STDIO_SIM_STREAMS_MAX) return false;
  open_streams[open_streams_n++] = s;
  return true;
}

static void forget(struct sim_stream *s) {
  for (unsigned i = 0; i < open_streams_n; i++)
    if (open_streams[i] == s) {
      open_streams[i] = open_streams[--open_streams_n];
      return;
    }
}

/* The call site a disk stream's read or write is a preemption point at,
 * or 0 for none.  glibc holds the stream's real lock across the callback:
 * another thread of the process taking it meanwhile would wait in the
 * kernel, so only a process with one simulated thread (nobody else can
 * want the lock; a forked child has its own copy) yields here. */
static uintptr_t disk_stream_pc(int fd) {
  if (detsim__self() == NULL || detsim__live_threads() != 1 || net_fd_get(fd) != NULL || !detsim__disk_fd_tracked(fd))
    return 0;
  return detsim__program_pc();
}

static ssize_t stream_read(void *cookie, char *buf, size_t n) {
  struct sim_stream *s = cookie;
  s->used = true;
  return detsim__fd_read(s->fd, buf, n, disk_stream_pc(s->fd));
}

/* The run is ending (detsim__stdio_end): a stream on a simulated
 * descriptor takes no more yield points. */
static bool ending;

void detsim__stdio_end(void) { ending = true; }

static ssize_t stream_write(void *cookie, const char *buf, size_t n) {
  struct sim_stream *s = cookie;
  s->used = true;
  if (ending && net_fd_get(s->fd) != NULL) {
    errno = EPIPE; /* the process is gone for its peers */
    return 0;
  }
  /* libc's stdio filled the buffer, which MSan does not see (natively its
   * internal write is not checked either). */
  detsim__msan_unpoison(buf, n);
  size_t done = 0;
  uintptr_t pc = disk_stream_pc(s->fd);
  while (done < n) {
    ssize_t k = detsim__fd_write(s->fd, buf + done, n - done, pc);
    if (k <= 0) break; /* errno from the write; the stream's error flag follows */
    done += (size_t)k;
  }
  return (ssize_t)done;
}

static int stream_seek(void *cookie, off64_t *offset, int whence) {
  struct sim_stream *s = cookie;
  detsim__msan_unpoison(offset, sizeof *offset); /* libc's, not instrumented */
  if (net_fd_get(s->fd) != NULL) {
    errno = ESPIPE;
    return -1;
  }
  off_t r = lseek(s->fd, (off_t)*offset, whence);
  if (r < 0) return -1;
  *offset = r;
  return 0;
}

static int stream_close(void *cookie) {
  struct sim_stream *s = cookie;
  int r = close(s->fd);
  int e = errno;
  if (!s->standard) {
    forget(s);
    free(s->own_buf);
    free(s);
  }
  errno = e;
  return r;
}

static const cookie_io_functions_t stream_io = { stream_read, stream_write, stream_seek, stream_close };

/* ---- fdopen ---- */

/* fdopen's mode, as glibc reads it: 'r', 'w' or 'a', then up to four more
 * characters of which '+' (read and write) counts. */
static bool parse_mode(const char *mode, bool *rd, bool *wr, char *cookie_mode) {
  if (mode == NULL) return false;
  switch (mode[0]) {
  case 'r': *rd = true; *wr = false; break;
  case 'w':
  case 'a': *rd = false; *wr = true; break;
  default: return false;
  }
  bool plus = false;
  for (int i = 1; i < 5 && mode[i] != '\0'; i++)
    if (mode[i] == '+') {
      plus = true;
      break;
    }
  if (plus) *rd = *wr = true;
  cookie_mode[0] = mode[0];
  cookie_mode[1] = plus ? '+' : '\0';
  cookie_mode[2] = '\0';
  return true;
}

static FILE *sim_fdopen(int fd, const char *mode) {
  bool rd, wr;
  char cookie_mode[3];
  if (!parse_mode(mode, &rd, &wr, cookie_mode)) {
    errno = EINVAL;
    return NULL;
  }
  int flags = fcntl(fd, F_GETFL); /* the interceptor: the simulated file's mode */
  if (flags == -1) return NULL;
  int acc = flags & O_ACCMODE;
  if ((acc == O_RDONLY && wr) || (acc == O_WRONLY && rd)) {
    errno = EINVAL;
    return NULL;
  }
  /* An append stream writes at the end (the descriptor's O_APPEND does it);
   * a fresh file stream starts where its descriptor is. */
  if (open_streams_n >= DETSIM_STDIO_SIM_STREAMS_MAX) {
    net_limit("stdio_sim_streams_max", DETSIM_STDIO_SIM_STREAMS_MAX,
              "too many streams fdopen()ed on simulated descriptors at once (EMFILE)");
    errno = EMFILE;
    return NULL;
  }
  struct sim_stream *s = calloc(1, sizeof *s);
  char *buf = malloc(DETSIM_STDIO_STREAM_BUFFER_BYTES);
  FILE *fp = s != NULL && buf != NULL ? fopencookie(s, cookie_mode, stream_io) : NULL;
  if (fp == NULL) {
    free(s);
    free(buf);
    errno = ENOMEM;
    return NULL;
  }
  s->fd = fd;
  s->fp = fp;
  s->own_buf = buf;
  remember(s);
  fp->_fileno = fd;
  setvbuf(fp, buf, _IOFBF, DETSIM_STDIO_STREAM_BUFFER_BYTES);
  return fp;
}

FILE *detsim__stdio_fdopen_real(int fd, const char *mode) { return sim_fdopen(fd, mode); }

DETSIM_EXPORT FILE *__detsim_fdopen(int fd, const char *mode) {
  /* A file of the simulated disk too: its stream writes through the disk. */
  if (net_fd_get(fd) == NULL && !(detsim__self() != NULL && detsim__disk_fd_tracked(fd))) return REAL(fdopen)(fd, mode);
  return sim_fdopen(fd, mode);
}
DETSIM_INTERCEPT_ALIAS(fdopen)

/* ---- the standard streams ---- */

static struct sim_stream std_cookie[3];
static FILE *std_stream[3];
static char std_buf[3][BUFSIZ];

/* glibc's choice for a stream's first buffer (_IO_file_doallocate): a
 * terminal is line-buffered, the block size is st_blksize when smaller than
 * BUFSIZ; stderr is unbuffered from the start. */
static void choose_buffering_now(int fd) {
  FILE *fp = std_stream[fd];
  if (fd == 2) {
    setvbuf(fp, NULL, _IONBF, 0);
    return;
  }
  int mode = _IOFBF;
  size_t size = BUFSIZ;
  struct stat st;
  if (fstat(fd, &st) == 0) {
    if (S_ISCHR(st.st_mode) && isatty(fd)) mode = _IOLBF;
    if (st.st_blksize > 0 && st.st_blksize < BUFSIZ) size = (size_t)st.st_blksize;
  }
  setvbuf(fp, std_buf[fd], mode, size);
}

static void choose_buffering(int fd) {
  int saved_errno = errno; /* isatty's ENOTTY is not the program's */
  choose_buffering_now(fd);
  errno = saved_errno;
}

void detsim__stdio_install(void) {
  int saved_errno = errno;
  FILE **slot[3] = { &stdin, &stdout, &stderr };
  static const char *const mode[3] = { "r", "w", "w" };
  for (int fd = 0; fd < 3; fd++) {
    fflush(*slot[fd]);
    std_cookie[fd].fd = fd;
    std_cookie[fd].standard = true;
    FILE *fp = fopencookie(&std_cookie[fd], mode[fd], stream_io);
    if (fp == NULL) continue; /* glibc's stream stays: its output is not counted */
    fp->_fileno = fd;
    std_stream[fd] = fp;
    choose_buffering(fd);
    *slot[fd] = fp;
  }
  errno = saved_errno;
}

void detsim__stdio_fd_changed(int fd) {
  if (fd < 0 || fd > 1 || std_stream[fd] == NULL) return; /* stderr is unbuffered whatever it is */
  FILE *fp = std_stream[fd];
  FILE *now = fd == 0 ? stdin : stdout;
  /* Only a stream nobody used nor re-buffered (setvbuf) takes a new choice. */
  if (now != fp || std_cookie[fd].used || fp->_IO_buf_base != std_buf[fd] || fp->_IO_write_ptr != fp->_IO_write_base ||
      fp->_IO_read_ptr != fp->_IO_read_end)
    return;
  choose_buffering(fd);
}

/* ---- freopen: glibc's cannot take a cookie stream ---- */

/* The runtime's stream behind fp (a standard one, or NULL: glibc's freopen
 * writes through a cookie stream's _wide_data, which is -1). */
static struct sim_stream *stream_of(FILE *fp) {
  for (int fd = 0; fd < 3; fd++)
    if (std_stream[fd] != NULL && fp == std_stream[fd]) return &std_cookie[fd];
  for (unsigned i = 0; i < open_streams_n; i++)
    if (open_streams[i]->fp == fp) return open_streams[i];
  return NULL;
}

static int open_flags(const char *mode) {
  int flags = 0;
  switch (mode[0]) {
  case 'r': flags = O_RDONLY; break;
  case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC; break;
  case 'a': flags = O_WRONLY | O_CREAT | O_APPEND; break;
  default: return -1;
  }
  for (const char *m = mode + 1; *m != '\0' && *m != ','; m++) {
    if (*m == '+') flags = (flags & ~O_ACCMODE) | O_RDWR;
    else if (*m == 'e') flags |= O_CLOEXEC;
    else if (*m == 'x') flags |= O_EXCL;
  }
  return flags;
}

/* As glibc's: the stream is flushed, then its descriptor names the new
 * file (opened, then moved onto the old number, so stdout stays on 1); on
 * failure the old descriptor is closed and NULL returned. */
static FILE *sim_freopen(const char *filename, const char *mode, FILE *fp, struct sim_stream *s) {
  fflush(fp);
  int flags = mode != NULL ? open_flags(mode) : -1;
  if (flags < 0) {
    errno = EINVAL;
    return NULL;
  }
  char self[64];
  if (filename == NULL) {
    if (net_fd_get(s->fd) != NULL) {
      net_unsupported("freopen(NULL, ...) of a stream on a simulated descriptor", "it has no file to reopen");
      errno = EINVAL;
      return NULL;
    }
    snprintf(self, sizeof self, "/proc/self/fd/%d", s->fd);
    filename = self;
    flags &= ~(O_CREAT | O_EXCL | O_TRUNC);
  }
  int nfd = open(filename, flags, 0666);
  if (nfd < 0) {
    int e = errno;
    close(s->fd);
    errno = e;
    return NULL;
  }
  if (nfd != s->fd) {
    int r = dup3(nfd, s->fd, flags & O_CLOEXEC);
    int e = errno;
    close(nfd);
    if (r < 0) {
      errno = e;
      return NULL;
    }
  }
  clearerr(fp);
  if (s->standard) {
    s->used = false;
    choose_buffering(s->fd); /* a fresh stream on the new file, as glibc's */
  }
  return fp;
}

/* A stream glibc opened (fopen of a file off the disk, tmpfile, popen)
 * cannot become one of the runtime's in place; reopened onto a file of
 * the disk it would write past it: a clear error. */
static void glibc_stream_onto_disk(const char *filename) {
  if (filename != NULL && detsim__self() != NULL && detsim__disk_path_tracked(AT_FDCWD, filename))
    detsim__disk_unsupported("freopen of a stream glibc opened (a file off the disk) onto a file of the simulated disk "
                             "(fopen the file instead)");
}

DETSIM_EXPORT FILE *__detsim_freopen(const char *filename, const char *mode, FILE *fp) {
  struct sim_stream *s = fp != NULL ? stream_of(fp) : NULL;
  FILE *special = NULL;
  if (s == NULL && filename != NULL && detsim__machine_freopen(filename, mode, fp, &special)) return special;
  if (s == NULL) glibc_stream_onto_disk(filename);
  if (s == NULL) return REAL(freopen)(filename, mode, fp);
  return sim_freopen(filename, mode, fp, s);
}
DETSIM_INTERCEPT_ALIAS(freopen)

DETSIM_EXPORT FILE *__detsim_freopen64(const char *filename, const char *mode, FILE *fp) {
  struct sim_stream *s = fp != NULL ? stream_of(fp) : NULL;
  FILE *special = NULL;
  if (s == NULL && filename != NULL && detsim__machine_freopen(filename, mode, fp, &special)) return special;
  if (s == NULL) glibc_stream_onto_disk(filename);
  if (s == NULL) return REAL(freopen64)(filename, mode, fp);
  return sim_freopen(filename, mode, fp, s);
}
DETSIM_INTERCEPT_ALIAS(freopen64)

/* ---- tmpfile: on the disk when its directory is ---- */

/* As glibc's: an unnamed file (O_TMPFILE) in P_tmpdir, as a "w+" stream;
 * when that directory is under the data directory, the file is the disk's
 * (its writes journaled, its time the disk's) and the stream the
 * runtime's.  Elsewhere glibc's. */
static FILE *disk_tmpfile(void) {
  int fd = detsim__disk_open(AT_FDCWD, P_tmpdir, O_RDWR | O_TMPFILE | O_EXCL, 0600);
  if (fd < 0) return NULL;
  FILE *f = sim_fdopen(fd, "w+");
  if (f == NULL) {
    int e = errno;
    detsim__disk_close(fd);
    errno = e;
  }
  return f;
}

static bool tmpdir_on_disk(void) { return detsim__self() != NULL && detsim__disk_path_tracked(AT_FDCWD, P_tmpdir "/."); }

DETSIM_EXPORT FILE *__detsim_tmpfile(void) { return tmpdir_on_disk() ? disk_tmpfile() : REAL(tmpfile)(); }
DETSIM_INTERCEPT_ALIAS(tmpfile)

DETSIM_EXPORT FILE *__detsim_tmpfile64(void) { return tmpdir_on_disk() ? disk_tmpfile() : REAL(tmpfile64)(); }
DETSIM_INTERCEPT_ALIAS(tmpfile64)

/* ---- dprintf: glibc formats into a stream on the descriptor ---- */

static int write_formatted(int fd, const char *p, size_t n, uintptr_t pc) {
  size_t done = 0;
  while (done < n) {
    ssize_t k = detsim__fd_write(fd, p + done, n - done, pc);
    if (k <= 0) return -1;
    done += (size_t)k;
  }
  return 0;
}

static int sim_vdprintf(int fd, const char *fmt, va_list ap, uintptr_t pc) {
  char small[1024];
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  char *p = small;
  if (n >= 0 && (size_t)n >= sizeof small) {
    p = malloc((size_t)n + 1);
    if (p == NULL) n = -1;
    else vsnprintf(p, (size_t)n + 1, fmt, again);
  }
  va_end(again);
  if (n < 0) return -1;
  int r = write_formatted(fd, p, (size_t)n, pc);
  if (p != small) free(p);
  return r < 0 ? -1 : n;
}

DETSIM_EXPORT int __detsim_vdprintf(int fd, const char *fmt, va_list ap) {
  return sim_vdprintf(fd, fmt, ap, (uintptr_t)__builtin_return_address(0));
}
DETSIM_INTERCEPT_ALIAS(vdprintf)

DETSIM_EXPORT int __detsim_dprintf(int fd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = sim_vdprintf(fd, fmt, ap, (uintptr_t)__builtin_return_address(0));
  va_end(ap);
  return r;
}
DETSIM_INTERCEPT_ALIAS(dprintf)

/* ---- wide output: a cookie stream is byte-oriented ----
 * glibc makes every cookie stream byte-oriented (fwide -1), so wprintf and
 * its family would fail on the runtime's streams where they work on
 * glibc's own stdout.  On the runtime's streams they convert to the
 * locale's multibyte text and write that; on any other stream they are
 * glibc's. */

static bool is_ours(FILE *fp) { return fp != NULL && stream_of(fp) != NULL; }

/* A stream's orientation is decided by its first use, as glibc's fwide:
 * wide output on a stream already used for bytes fails (-1). */
static bool wide_ok(FILE *fp) {
  struct sim_stream *s = stream_of(fp);
  if (s->wide) return true;
  if (s->used || fp->_IO_write_ptr != fp->_IO_write_base || fp->_IO_read_ptr != fp->_IO_read_end) return false;
  s->wide = true;
  return true;
}

/* Writes wide text as multibyte; the count of wide characters, or -1. */
static int put_wide(FILE *fp, const wchar_t *ws, size_t n) {
  if (!wide_ok(fp)) return -1;
  mbstate_t st;
  memset(&st, 0, sizeof st);
  char mb[MB_LEN_MAX];
  for (size_t i = 0; i < n; i++) {
    size_t k = wcrtomb(mb, ws[i], &st);
    if (k == (size_t)-1) return -1; /* EILSEQ */
    if (fwrite(mb, 1, k, fp) != k) return -1;
  }
  return (int)n;
}

static int sim_vfwprintf(FILE *fp, const wchar_t *fmt, va_list ap) {
  wchar_t small[512];
  va_list again;
  va_copy(again, ap);
  int n = vswprintf(small, sizeof small / sizeof small[0], fmt, ap);
  wchar_t *ws = small;
  size_t cap = sizeof small / sizeof small[0];
  /* vswprintf says -1 both for a format error and for a short buffer. */
  while (n < 0 && cap < DETSIM_STDIO_WIDE_CHARS_MAX) {
    cap *= 4;
    wchar_t *bigger = realloc(ws == small ? NULL : ws, cap * sizeof *ws);
    if (bigger == NULL) break;
    ws = bigger;
    va_list once;
    va_copy(once, again);
    n = vswprintf(ws, cap, fmt, once);
    va_end(once);
  }
  va_end(again);
  int r = n < 0 ? -1 : put_wide(fp, ws, (size_t)n);
  if (ws != small) free(ws);
  return r;
}

DETSIM_EXPORT int __detsim_vfwprintf(FILE *fp, const wchar_t *fmt, va_list ap) {
  if (!is_ours(fp)) return REAL(vfwprintf)(fp, fmt, ap);
  return sim_vfwprintf(fp, fmt, ap);
}
DETSIM_INTERCEPT_ALIAS(vfwprintf)

DETSIM_EXPORT int __detsim_fwprintf(FILE *fp, const wchar_t *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = is_ours(fp) ? sim_vfwprintf(fp, fmt, ap) : REAL(vfwprintf)(fp, fmt, ap);
  va_end(ap);
  return r;
}
DETSIM_INTERCEPT_ALIAS(fwprintf)

DETSIM_EXPORT int __detsim_vwprintf(const wchar_t *fmt, va_list ap) { return __detsim_vfwprintf(stdout, fmt, ap); }
DETSIM_INTERCEPT_ALIAS(vwprintf)

DETSIM_EXPORT int __detsim_wprintf(const wchar_t *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = __detsim_vfwprintf(stdout, fmt, ap);
  va_end(ap);
  return r;
}
DETSIM_INTERCEPT_ALIAS(wprintf)

DETSIM_EXPORT wint_t __detsim_fputwc(wchar_t wc, FILE *fp) {
  if (!is_ours(fp)) return REAL(fputwc)(wc, fp);
  return put_wide(fp, &wc, 1) == 1 ? (wint_t)wc : WEOF;
}
DETSIM_INTERCEPT_ALIAS(fputwc)

DETSIM_EXPORT wint_t __detsim_putwc(wchar_t wc, FILE *fp) { return __detsim_fputwc(wc, fp); }
DETSIM_INTERCEPT_ALIAS(putwc)

DETSIM_EXPORT wint_t __detsim_putwchar(wchar_t wc) { return __detsim_fputwc(wc, stdout); }
DETSIM_INTERCEPT_ALIAS(putwchar)

DETSIM_EXPORT int __detsim_fputws(const wchar_t *ws, FILE *fp) {
  if (!is_ours(fp)) return REAL(fputws)(ws, fp);
  return put_wide(fp, ws, wcslen(ws)) < 0 ? -1 : 1;
}
DETSIM_INTERCEPT_ALIAS(fputws)

