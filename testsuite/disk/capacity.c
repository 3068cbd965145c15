/* The simulated disk's capacity (DETSIM_OPTIONS disk_capacity=, docs/disk.md
 * "Capacity"):
 *
 *   disk_capacity [CAP]
 *
 * Works in a fresh directory under the working directory, which must be
 * the data directory and hold nothing else of size (the capacity counts
 * every regular file under it).  Without CAP (or 0) the disk is unlimited:
 * every call succeeds, and the output is the native run's.  With CAP the
 * run must be under disk_capacity=CAP, and each result is checked against
 * Linux's rules for a full disk (a message and exit 1 when one breaks):
 * appends take what fits (one short write), then fail with ENOSPC;
 * overwrites need no room; ftruncate and unlink and O_TRUNC free; a
 * growth by ftruncate is a hole Linux grants; fallocate past the room
 * fails with ENOSPC, up to it succeeds.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK 1000

static long cap;
static int broken;
static char dir[64];

static const char *at(const char *name) {
  static char b[4][128];
  static unsigned n;
  char *p = b[n++ % 4];
  snprintf(p, sizeof b[0], "%s/%s", dir, name);
  return p;
}

static long show(const char *label, long rc) {
  if (rc < 0) printf("%s = -1 %s\n", label, strerrorname_np(errno));
  else printf("%s = %ld\n", label, rc);
  return rc;
}

/* With a capacity, `got` must be `want` (a result, or -ENAME). */
static void rule(const char *what, long got, long want) {
  if (cap == 0 || got == want) return;
  printf("RULE BROKEN: %s: got %ld, want %ld\n", what, got, want);
  broken = 1;
}

static long result(long rc) { return rc < 0 ? -errno : rc; }

static long size_of(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int main(int argc, char **argv) {
  cap = argc > 1 ? atol(argv[1]) : 0;
  strcpy(dir, "cap-XXXXXX");
  if (!mkdtemp(dir)) return 2;
  char buf[20000];
  memset(buf, 'x', sizeof buf);

  /* Appends until the disk is full (at most 20 chunks unlimited). */
  int fd = open(at("a"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  long total = 0, shorts = 0, last = 0;
  int fail_errno = 0;
  for (int i = 0; i < 20; i++) {
    ssize_t w = write(fd, buf, CHUNK);
    if (w < 0) {
      fail_errno = errno;
      break;
    }
    total += w;
    if (w < CHUNK) shorts++, last = w;
  }
  printf("appends: %ld bytes, %ld short (the last %ld), then %s\n", total, shorts, last,
         fail_errno ? strerrorname_np(fail_errno) : "no error");
  rule("appends fill the disk exactly", total, cap);
  rule("one short write where the disk fills mid-chunk", shorts, cap % CHUNK ? 1 : 0);
  rule("then ENOSPC", fail_errno, ENOSPC);
  rule("a write after ENOSPC fails again", result(show("one more append", write(fd, buf, 10))), cap ? -ENOSPC : 10);
  rule("an overwrite needs no room", result(show("pwrite over byte 0", pwrite(fd, "y", 1, 0))), 1);

  /* Truncation frees; the room it gives back is taken, then ENOSPC. */
  show("ftruncate to 5000", ftruncate(fd, 5000));
  lseek(fd, 0, SEEK_END);
  rule("a write into freed room", result(show("append 3000", write(fd, buf, 3000))), 3000);
  long used = size_of(at("a"));
  rule("what is left is taken by a short write",
       result(show("append 10000", write(fd, buf, 10000))), cap ? (cap - used < 10000 ? cap - used : 10000) : 10000);
  close(fd);
  printf("size of a: %ld\n", size_of(at("a")));

  /* unlink frees; fallocate past the room fails, up to it succeeds. */
  show("unlink a", unlink(at("a")));
  fd = open(at("b"), O_RDWR | O_CREAT | O_TRUNC, 0644);
  int e = posix_fallocate(fd, 0, 15000);
  printf("posix_fallocate 15000 = %s\n", e ? strerrorname_np(e) : "0");
  rule("posix_fallocate past the capacity fails", e, cap && cap < 15000 ? ENOSPC : 0);
  if (e == 0) ftruncate(fd, 0);
  e = posix_fallocate(fd, 0, 8000);
  printf("posix_fallocate 8000 = %s\n", e ? strerrorname_np(e) : "0");
  rule("posix_fallocate within the capacity succeeds", e, 0);
  rule("fallocate KEEP_SIZE past the room fails",
       result(show("fallocate KEEP_SIZE 8000-15000", fallocate(fd, FALLOC_FL_KEEP_SIZE, 8000, 7000))),
       cap && cap < 15000 ? -ENOSPC : 0);
  printf("size of b: %ld\n", size_of(at("b")));

  /* A growth by ftruncate is a hole: Linux grants it on a full disk. */
  rule("ftruncate growth is granted", result(show("ftruncate b to 30000", ftruncate(fd, 30000))), 0);
  rule("an append past a hole that fills the disk fails",
       result(show("append to b", pwrite(fd, buf, 100, 30000))), cap && cap < 30100 ? -ENOSPC : 100);
  close(fd);

  /* O_TRUNC frees. */
  fd = open(at("b"), O_WRONLY | O_TRUNC);
  rule("O_TRUNC freed b", result(show("write 4000 after O_TRUNC", write(fd, buf, 4000))), 4000);
  close(fd);
  show("unlink b", unlink(at("b")));
  rmdir(dir);
  return broken;
}
