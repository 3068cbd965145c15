/* The disk's remaining file calls, natively and on a data directory with
 * the same output: O_TMPFILE and linkat (AT_EMPTY_PATH, /proc/self/fd/N),
 * renameat2 with RENAME_EXCHANGE (and NOREPLACE, WHITEOUT), copy_file_range,
 * fallocate's modes (ZERO_RANGE, PUNCH_HOLE, COLLAPSE_RANGE, INSERT_RANGE),
 * rename into and out of the directory (and EXDEV from another file
 * system), freopen and tmpfile.  Errors are Linux's.
 *
 * "fresh" says whether a file's mtime is the clock's now (within 2 s):
 * natively always; simulated, only when the call went through the disk,
 * which sets a file's times to the virtual clock (a call past it would
 * leave the real time, years from the virtual one).
 */
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "../files/conformance/files_common.h"

#ifndef FALLOC_FL_COLLAPSE_RANGE
#include <linux/falloc.h>
#endif

static void put(const char *path, const char *content) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, content, strlen(content)) != (ssize_t)strlen(content)) printf("put %s failed\n", path);
  close(fd);
}

static void fresh(const char *label, int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    printf("%s: fstat failed\n", label);
    return;
  }
  long d = (long)(time(NULL) - st.st_mtime);
  printf("%s fresh: %s\n", label, d >= -2 && d <= 2 ? "yes" : "no");
}

static void fresh_path(const char *label, const char *path) {
  int fd = open(path, O_RDONLY);
  fresh(label, fd);
  close(fd);
}

/* The file's bytes as text: '.' for a zero byte. */
static void dump(const char *label, const char *path) {
  char buf[64];
  int fd = open(path, O_RDONLY);
  ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
  struct stat st;
  fstat(fd, &st);
  close(fd);
  if (n < 0) {
    printf("%s: unreadable\n", label);
    return;
  }
  for (ssize_t i = 0; i < n; i++)
    if (buf[i] == 0) buf[i] = '.';
  buf[n] = '\0';
  printf("%s: size %ld [%s]\n", label, (long)st.st_size, buf);
}

static void tmpfile_link(void) {
  char buf[64];
  int fd = open(files_dir, O_TMPFILE | O_RDWR, 0600);
  show("open O_TMPFILE", fd >= 0 ? 0 : -1);
  show("write to it", write(fd, "unnamed", 7));
  struct stat st;
  fstat(fd, &st);
  printf("tmpfile: regular %d links %ld size %ld\n", S_ISREG(st.st_mode), (long)st.st_nlink, (long)st.st_size);
  fresh("tmpfile", fd);
  show("fsync it", fsync(fd));
  show("linkat AT_EMPTY_PATH -> t1", linkat(fd, "", AT_FDCWD, at("t1"), AT_EMPTY_PATH));
  fstat(fd, &st);
  printf("t1: links %ld content %s\n", (long)st.st_nlink, slurp(at("t1"), buf, sizeof buf));
  show("linkat onto an existing name", linkat(fd, "", AT_FDCWD, at("t1"), AT_EMPTY_PATH));
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  show("linkat /proc/self/fd/N -> t2", linkat(AT_FDCWD, self, AT_FDCWD, at("t2"), AT_SYMLINK_FOLLOW));
  fstat(fd, &st);
  printf("after two links: %ld\n", (long)st.st_nlink);
  close(fd);

  fd = open(files_dir, O_TMPFILE | O_WRONLY | O_EXCL, 0600);
  show("open O_TMPFILE|O_EXCL", fd >= 0 ? 0 : -1);
  show("write", write(fd, "never named", 11));
  show("linkat of an O_EXCL one", linkat(fd, "", AT_FDCWD, at("t3"), AT_EMPTY_PATH));
  close(fd);
  show("open O_TMPFILE read-only", open(files_dir, O_TMPFILE | O_RDONLY, 0600));
  show("open O_TMPFILE in a missing directory", open(at("nodir"), O_TMPFILE | O_RDWR, 0600));
  show("open O_TMPFILE on a file", open(at("t1"), O_TMPFILE | O_RDWR, 0600));
  fd = open(at("t1"), O_RDONLY);
  show("linkat AT_EMPTY_PATH of a named file -> t4", linkat(fd, "", AT_FDCWD, at("t4"), AT_EMPTY_PATH));
  close(fd);
  printf("t4: %s\n", slurp(at("t4"), buf, sizeof buf));
  show("linkat without AT_EMPTY_PATH, empty path", linkat(AT_FDCWD, "", AT_FDCWD, at("t5"), 0));
}

static void exchange(void) {
  char buf[64];
  put(at("xa"), "alpha");
  put(at("xb"), "beta");
  show("exchange xa xb", renameat2(AT_FDCWD, at("xa"), AT_FDCWD, at("xb"), RENAME_EXCHANGE));
  printf("xa: %s xb: %s\n", slurp(at("xa"), buf, sizeof buf), slurp(at("xb"), buf + 32, 32));
  show("exchange with a missing name", renameat2(AT_FDCWD, at("xa"), AT_FDCWD, at("nope"), RENAME_EXCHANGE));
  show("exchange with NOREPLACE", renameat2(AT_FDCWD, at("xa"), AT_FDCWD, at("xb"), RENAME_EXCHANGE | RENAME_NOREPLACE));
  show("exchange a name with itself", renameat2(AT_FDCWD, at("xa"), AT_FDCWD, at("xa"), RENAME_EXCHANGE));
  show("mkdir xd", mkdir(at("xd"), 0755));
  put(at("xd/in"), "inside");
  show("exchange a file and a directory", renameat2(AT_FDCWD, at("xa"), AT_FDCWD, at("xd"), RENAME_EXCHANGE));
  printf("xa/in: %s xd: %s\n", slurp(at("xa/in"), buf, sizeof buf), slurp(at("xd"), buf + 32, 32));
  show("mkdir xe", mkdir(at("xe"), 0755));
  show("exchange across directories", renameat2(AT_FDCWD, at("xb"), AT_FDCWD, at("xe"), RENAME_EXCHANGE));
  show("stat xe is a file", access(at("xe"), R_OK));
  fresh_path("exchanged", at("xe"));
  show("whiteout xd -> xw", renameat2(AT_FDCWD, at("xd"), AT_FDCWD, at("xw"), RENAME_WHITEOUT));
  struct stat st;
  if (lstat(at("xd"), &st) == 0) printf("xd after the whiteout: char device %d\n", S_ISCHR(st.st_mode));
  else printf("xd after the whiteout: %s\n", strerrorname_np(errno));
  unlink(at("xd"));
}

static void copy_range(void) {
  char buf[64];
  put(at("src"), "0123456789abcdefghij");
  put(at("dst"), "XXXXXXXXXX");
  int in = open(at("src"), O_RDONLY), out = open(at("dst"), O_RDWR);
  off_t io = 2, oo = 5;
  show("copy_file_range 6 bytes at 2 -> 5", copy_file_range(in, &io, out, &oo, 6, 0));
  printf("offsets now %ld %ld\n", (long)io, (long)oo);
  dump("dst", at("dst"));
  fresh("dst", out);
  show("copy_file_range at the positions", copy_file_range(in, NULL, out, NULL, 4, 0));
  printf("positions now %ld %ld\n", (long)lseek(in, 0, SEEK_CUR), (long)lseek(out, 0, SEEK_CUR));
  dump("dst", at("dst"));
  io = 15, oo = 30;
  show("copy_file_range past the source's end (shortened)", copy_file_range(in, &io, out, &oo, 100, 0));
  dump("dst", at("dst"));
  io = 50;
  show("copy_file_range from past the end", copy_file_range(in, &io, out, &oo, 10, 0));
  show("copy_file_range with flags", copy_file_range(in, NULL, out, NULL, 4, 1));
  io = 0, oo = 2;
  show("copy_file_range overlapping in one file", copy_file_range(out, &io, out, &oo, 4, 0));
  io = 0, oo = 40;
  show("copy_file_range within one file", copy_file_range(out, &io, out, &oo, 4, 0));
  dump("dst", at("dst"));
  int ro = open(at("dst"), O_RDONLY), ap = open(at("dst"), O_WRONLY | O_APPEND), d = open(files_dir, O_RDONLY);
  show("copy_file_range to a read-only descriptor", copy_file_range(in, NULL, ro, NULL, 4, 0));
  show("copy_file_range to an O_APPEND descriptor", copy_file_range(in, NULL, ap, NULL, 4, 0));
  show("copy_file_range from a directory", copy_file_range(d, NULL, out, NULL, 4, 0));
  show("copy_file_range from a write-only descriptor", copy_file_range(ap, NULL, out, NULL, 4, 0));
  close(ro);
  close(ap);
  close(d);
  /* Another file system: /dev/shm is tmpfs. */
  char shm[64];
  snprintf(shm, sizeof shm, "/dev/shm/calls-conf-%d", (int)getpid());
  put(shm, "elsewhere");
  int other = open(shm, O_RDONLY);
  show("copy_file_range from another file system", other >= 0 ? copy_file_range(other, NULL, out, NULL, 4, 0) : -1);
  close(other);
  unlink(shm);
  /* A copy of many pieces. */
  int big = open(at("big"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  static char blob[200000];
  for (size_t i = 0; i < sizeof blob; i++) blob[i] = (char)('a' + (i * 7 + i / 4096) % 26);
  if (write(big, blob, sizeof blob) != (ssize_t)sizeof blob) printf("write big failed\n");
  int copy = open(at("copy"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  io = 0, oo = 0;
  show("copy_file_range of 200000 bytes", copy_file_range(big, &io, copy, &oo, sizeof blob, 0));
  static char back[200000];
  printf("copy matches: %d\n", pread(copy, back, sizeof back, 0) == (ssize_t)sizeof back && memcmp(back, blob, sizeof blob) == 0);
  close(big);
  close(copy);
  close(in);
  close(out);
  (void)buf;
}

static void fill(const char *path, size_t pages) {
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  char page[4096];
  for (size_t p = 0; p < pages; p++) {
    memset(page, 'A' + (int)p, sizeof page);
    if (write(fd, page, sizeof page) != (ssize_t)sizeof page) printf("fill failed\n");
  }
  close(fd);
}

/* Each page's first byte, '.' for zero, and the size in pages. */
static void pages(const char *label, const char *path) {
  int fd = open(path, O_RDONLY);
  struct stat st;
  fstat(fd, &st);
  printf("%s: %ld bytes [", label, (long)st.st_size);
  for (off_t p = 0; p * 4096 < st.st_size; p++) {
    char c = 0, last = 0;
    pread(fd, &c, 1, p * 4096);
    pread(fd, &last, 1, p * 4096 + 4095);
    printf("%c%c", c ? c : '.', last ? last : '.');
  }
  printf("]\n");
  close(fd);
}

static void falloc(void) {
  fill(at("f"), 4);
  int fd = open(at("f"), O_RDWR);
  show("ZERO_RANGE within", fallocate(fd, FALLOC_FL_ZERO_RANGE, 4096, 4096));
  pages("f", at("f"));
  show("PUNCH_HOLE|KEEP_SIZE", fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8192 + 100, 4096));
  pages("f", at("f"));
  show("PUNCH_HOLE|KEEP_SIZE past the end", fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 16000, 8192));
  pages("f", at("f"));
  show("PUNCH_HOLE without KEEP_SIZE", fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 4096));
  show("ZERO_RANGE|KEEP_SIZE past the end", fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 16000, 8192));
  pages("f", at("f"));
  show("ZERO_RANGE growing", fallocate(fd, FALLOC_FL_ZERO_RANGE, 16384, 4096));
  pages("f", at("f"));
  show("PUNCH_HOLE|ZERO_RANGE", fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 0, 4096));
  show("ZERO_RANGE of length 0", fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, 0));
  close(fd);

  fill(at("g"), 6);
  fd = open(at("g"), O_RDWR);
  show("COLLAPSE_RANGE of page 1", fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 4096, 4096));
  pages("g", at("g"));
  fresh("collapsed", fd);
  show("COLLAPSE_RANGE unaligned", fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 100, 4096));
  show("COLLAPSE_RANGE to the end", fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 8192, 12288));
  show("COLLAPSE_RANGE|KEEP_SIZE", fallocate(fd, FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_KEEP_SIZE, 0, 4096));
  show("INSERT_RANGE at page 2", fallocate(fd, FALLOC_FL_INSERT_RANGE, 8192, 8192));
  pages("g", at("g"));
  show("INSERT_RANGE at the end", fallocate(fd, FALLOC_FL_INSERT_RANGE, 7 * 4096, 4096));
  show("INSERT_RANGE unaligned", fallocate(fd, FALLOC_FL_INSERT_RANGE, 4096, 100));
  show("write into the inserted hole", pwrite(fd, "hole!", 5, 8192));
  pages("g", at("g"));
  close(fd);
  fd = open(at("g"), O_RDONLY);
  show("fallocate on a read-only descriptor", fallocate(fd, FALLOC_FL_ZERO_RANGE, 0, 4096));
  close(fd);
}

/* Another directory on the same file system as the working directory,
 * outside the data directory (which is the working directory). */
static char outside[64];

static void across(void) {
  char buf[64], o1[128], o2[128];
  snprintf(o1, sizeof o1, "%s/in", outside);
  snprintf(o2, sizeof o2, "%s/out", outside);
  put(o1, "from outside");
  show("rename into the directory", rename(o1, at("came")));
  printf("came: %s\n", slurp(at("came"), buf, sizeof buf));
  int fd = open(at("came"), O_WRONLY | O_APPEND);
  show("append to it", write(fd, " and stays", 10));
  fresh("came", fd);
  close(fd);
  put(at("going"), "leaving");
  fd = open(at("going"), O_WRONLY | O_APPEND);
  show("rename out of the directory", rename(at("going"), o2));
  show("append through a descriptor opened before", write(fd, " now", 4));
  close(fd);
  printf("out: %s; going there: %d\n", slurp(o2, buf, sizeof buf), access(at("going"), F_OK) == 0);
  put(at("victim"), "replaced");
  put(o1, "newcomer");
  show("rename over a file of the directory", rename(o1, at("victim")));
  printf("victim: %s\n", slurp(at("victim"), buf, sizeof buf));
  show("exchange across the boundary", renameat2(AT_FDCWD, o2, AT_FDCWD, at("victim"), RENAME_EXCHANGE));
  printf("victim: %s out: %s\n", slurp(at("victim"), buf, sizeof buf), slurp(o2, buf + 32, 32));
  show("mkdir od", mkdir(at("od"), 0755));
  put(at("od/f"), "in a directory");
  snprintf(o1, sizeof o1, "%s/od", outside);
  show("rename a directory out", rename(at("od"), o1));
  show("and back in", rename(o1, at("od2")));
  printf("od2/f: %s\n", slurp(at("od2/f"), buf, sizeof buf));
  char shm[64];
  snprintf(shm, sizeof shm, "/dev/shm/calls-conf-%d", (int)getpid());
  put(shm, "tmpfs");
  show("rename from another file system", rename(shm, at("shm")));
  show("rename to another file system", rename(at("came"), shm));
  unlink(shm);
  unlink(o2);
}

static void streams(void) {
  char line[64];
  put(at("lines"), "one\ntwo\n");
  FILE *in = freopen(at("lines"), "r", stdin);
  printf("freopen stdin: %s\n", in ? "ok" : strerrorname_np(errno));
  while (in && fgets(line, sizeof line, stdin)) printf("read: %s", line);
  int fd = open(at("s1"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "before\n");
  FILE *g = freopen(at("s2"), "w", f);
  printf("freopen an fdopen stream: %s\n", g ? "ok" : strerrorname_np(errno));
  if (g) {
    fprintf(g, "after freopen\n");
    fflush(g);
    fresh("s2", fileno(g));
    fclose(g);
  }
  printf("s1: %s", slurp(at("s1"), line, sizeof line));
  printf("s2: %s", slurp(at("s2"), line, sizeof line));
  FILE *t = tmpfile();
  printf("tmpfile: %s\n", t ? "ok" : strerrorname_np(errno));
  if (t) {
    fprintf(t, "scratch %d\n", 42);
    rewind(t);
    if (fgets(line, sizeof line, t)) printf("tmpfile read: %s", line);
    struct stat st;
    fstat(fileno(t), &st);
    printf("tmpfile links %ld\n", (long)st.st_nlink);
    fclose(t);
  }
}

int main(void) {
  files_setup();
  strcpy(outside, "../calls-outside-XXXXXX");
  if (!mkdtemp(outside)) {
    perror("mkdtemp");
    return 1;
  }
  tmpfile_link();
  exchange();
  copy_range();
  falloc();
  across();
  streams();
  files_rmtree(files_dir);
  files_rmtree(outside);
  return 0;
}
