/* A world test node on the simulated disk: it runs a workload on its data
 * directory (disk/, the scenario's `data`), notes in an oracle file outside
 * it (oracle, in its own directory: no power loss touches it) what it made
 * durable, and after a restart checks the model's rules against it.
 *
 *   disk_node MODE MODEL   MODE: log stdio overwrite names rename eio enospc corrupt mmap mmapfork
 *                          maplimit tmpfile exchange copy collapse freopen across;
 *                          MODEL: ext4 or posix (the rules it checks)
 *
 * A broken rule is a failed DETSIM_CHECK (class correctness); what the
 * model may do but need not (lose an unsynced write) is a DETSIM_SOMETIMES
 * the test wants reached in some seed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_TMPFILE, renameat2, copy_file_range, fallocate */
#endif
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "detsim.h"

#define REC 64
#define RECORDS 300

static bool posix_model;

static uint32_t sum(const unsigned char *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void make(unsigned seq, unsigned char out[REC]) {
  memset(out, 0, REC);
  memcpy(out, "RECD", 4);
  memcpy(out + 4, &seq, 4);
  for (int i = 8; i < REC - 4; i++) out[i] = (unsigned char)(seq * 31 + (unsigned)i);
  uint32_t h = sum(out, REC - 4);
  memcpy(out + REC - 4, &h, 4);
}

/* 1 valid record number seq, 0 all zeros, -1 anything else. */
static int classify(const unsigned char *p, unsigned seq) {
  unsigned char want[REC];
  make(seq, want);
  if (memcmp(p, want, REC) == 0) return 1;
  for (int i = 0; i < REC; i++)
    if (p[i]) return -1;
  return 0;
}

static void die(const char *what) {
  fprintf(stderr, "disk_node: %s: %s\n", what, strerror(errno));
  exit(2);
}

static void note(const char *fmt, unsigned v) {
  FILE *f = fopen("oracle", "a");
  if (!f) die("oracle");
  fprintf(f, fmt, v);
  fputc('\n', f);
  fclose(f);
}

/* The oracle's lines, in order: a letter and a count. */
struct ev {
  char kind;
  unsigned n;
};
static struct ev evs[4096];
static unsigned n_evs;

static bool load_oracle(void) {
  FILE *f = fopen("oracle", "r");
  if (!f) return false;
  char k;
  unsigned n;
  while (n_evs < 4096 && fscanf(f, " %c %u", &k, &n) == 2) evs[n_evs++] = (struct ev){ k, n };
  fclose(f);
  return true;
}

static unsigned last(char kind) {
  unsigned v = 0;
  for (unsigned i = 0; i < n_evs; i++)
    if (evs[i].kind == kind && evs[i].n > v) v = evs[i].n;
  return v;
}

static void write_all(int fd, const unsigned char *p, size_t n, bool retry_eio) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && retry_eio && errno == EIO) continue;
    if (w < 0) die("write");
    p += w;
    n -= (size_t)w;
  }
}

static void fsync_dir(const char *dir) {
  int d = open(dir, O_RDONLY | O_DIRECTORY);
  if (d < 0 || fsync(d) != 0) die("fsync of a directory");
  close(d);
}

/* ---- log: appends, an fsync every few; synced records survive ---- */

static void log_check(void) {
  unsigned synced = last('s'), written = last('w');
  int fd = open("disk/log", O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) die("log after restart");
  unsigned slots = (unsigned)(st.st_size / REC);
  bool zeros = false, bad = false;
  unsigned char buf[REC];
  for (unsigned k = 0; k < slots; k++) {
    if (pread(fd, buf, REC, (off_t)k * REC) != REC) die("pread");
    int c = classify(buf, k);
    if (c == 0) zeros = true;
    if (c < 0 || (c == 0 && k < synced)) bad = true;
    if (c != 1 && k < synced) fprintf(stderr, "disk_node: synced record %u lost (class %d)\n", k, c);
  }
  close(fd);
  DETSIM_CHECK(slots >= synced, "synced appends keep their size");
  DETSIM_CHECK(!bad, "synced records survive, the rest whole or zeros");
  DETSIM_CHECK(st.st_size % REC == 0 && slots <= written, "no bytes past what was written");
  if (!posix_model) DETSIM_CHECK(!zeros, "ext4: an append's data is there before its size");
  else DETSIM_SOMETIMES(zeros, "posix: a size survived without its data");
  DETSIM_SOMETIMES(slots < written, "unsynced appends lost");
  DETSIM_SOMETIMES(slots == written && written > synced, "unsynced appends kept");
}

static void log_run(void) {
  int fd = open("disk/log", O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) die("open log");
  fsync_dir("disk"); /* the log's name is durable from the start */
  unsigned char r[REC];
  for (unsigned i = 0; i < RECORDS; i++) {
    make(i, r);
    write_all(fd, r, REC, false);
    note("w %u", i + 1);
    if (i % 7 == 6) {
      if (fsync(fd) != 0) die("fsync");
      note("s %u", i + 1);
    }
    usleep(2000);
  }
  close(fd);
}

/* ---- stdio: the same log through a stream (fwrite, fflush, fsync of its
 * fileno), which must be on the disk too ---- */

static void stdio_run(void) {
  FILE *f = fopen("disk/log", "a");
  if (f == NULL) die("fopen log");
  fsync_dir("disk");
  unsigned char r[REC];
  for (unsigned i = 0; i < RECORDS; i++) {
    make(i, r);
    if (fwrite(r, REC, 1, f) != 1 || fflush(f) != 0) die("fwrite");
    note("w %u", i + 1);
    if (i % 7 == 6) {
      if (fsync(fileno(f)) != 0) die("fsync");
      note("s %u", i + 1);
    }
    usleep(2000);
  }
  fclose(f);
}

/* ---- overwrite: records rewritten in place (slot = seq % SLOTS); each
 * slot must read back as one whole version, never older than the last
 * synced one: undo never clobbers a newer surviving write ---- */

#define SLOTS 16

static void overwrite_check(void) {
  unsigned synced = last('s'), written = last('w');
  if (synced < SLOTS) return; /* the crash came before the slots were filled and synced: nothing promised */
  int fd = open("disk/slots", O_RDONLY);
  if (fd < 0) die("slots after restart");
  bool older = false;
  unsigned char buf[REC];
  for (unsigned slot = 0; slot < SLOTS; slot++) {
    unsigned seq = 0;
    bool whole = pread(fd, buf, REC, (off_t)slot * REC) == REC;
    if (whole) {
      memcpy(&seq, buf + 4, 4);
      whole = classify(buf, seq) == 1 && seq % SLOTS == slot && seq < written;
    }
    DETSIM_CHECK(whole, "each slot holds one whole version of its own");
    /* The newest version of the slot written before the last fsync. */
    unsigned floor = synced > 0 ? (synced - 1) - ((synced - 1 + SLOTS - slot) % SLOTS) : 0;
    DETSIM_CHECK(!whole || seq >= floor, "a slot is never older than its last synced version");
    unsigned newest = (written - 1) - ((written - 1 + SLOTS - slot) % SLOTS);
    if (whole && seq < newest) older = true;
  }
  close(fd);
  DETSIM_SOMETIMES(older, "an unsynced overwrite undone");
}

static void overwrite_run(void) {
  int fd = open("disk/slots", O_RDWR | O_CREAT, 0644);
  if (fd < 0) die("open slots");
  unsigned char r[REC];
  for (unsigned i = 0; i < SLOTS; i++) {
    make(i, r);
    if (pwrite(fd, r, REC, (off_t)i * REC) != REC) die("pwrite");
  }
  if (fsync(fd) != 0) die("fsync");
  fsync_dir("disk");
  note("w %u", SLOTS);
  note("s %u", SLOTS);
  for (unsigned t = SLOTS; t < RECORDS; t++) {
    make(t, r);
    if (pwrite(fd, r, REC, (off_t)(t % SLOTS) * REC) != REC) die("pwrite");
    note("w %u", t + 1);
    if (t % 9 == 8) {
      if (fdatasync(fd) != 0) die("fdatasync");
      note("s %u", t + 1);
    }
    usleep(2000);
  }
  close(fd);
}

/* ---- names: creates, a directory fsync every few ---- */

static void names_check(void) {
  unsigned synced = last('d'), created = last('c');
  bool gap = false, missing_after_gap = false, lost = false, any_missing = false;
  for (unsigned k = 0; k < created; k++) {
    char p[64];
    snprintf(p, sizeof p, "disk/n-%u", k);
    bool there = access(p, F_OK) == 0;
    DETSIM_CHECK(there || k >= synced, "a name synced by its directory's fsync survives");
    if (!there) any_missing = true;
    if (!there && k >= synced) lost = true;
    if (there && gap) missing_after_gap = true;
    if (!there) gap = true;
  }
  if (!posix_model) DETSIM_CHECK(!missing_after_gap, "ext4: the names that survive are an in-order prefix");
  else DETSIM_SOMETIMES(missing_after_gap, "posix: a later name survived an earlier one");
  DETSIM_SOMETIMES(lost, "unsynced names lost");
  DETSIM_SOMETIMES(!any_missing && created > synced, "unsynced names kept");
}

static void names_run(void) {
  for (unsigned i = 0; i < RECORDS; i++) {
    char p[64];
    snprintf(p, sizeof p, "disk/n-%u", i);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) die("create");
    close(fd);
    note("c %u", i + 1);
    if (i % 5 == 4) {
      fsync_dir("disk");
      note("d %u", i + 1);
    }
    usleep(2000);
  }
}

/* ---- rename: a new version fsynced, renamed over the current one ---- */

static int version_of(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  unsigned char buf[REC];
  ssize_t n = read(fd, buf, REC);
  close(fd);
  unsigned seq;
  if (n != REC) return -2;
  memcpy(&seq, buf + 4, 4);
  return classify(buf, seq) == 1 ? (int)seq : -2;
}

static void rename_check(void) {
  unsigned synced = last('d'), renamed = last('r');
  int cur = version_of("disk/cur"), tmp = version_of("disk/tmp");
  DETSIM_CHECK(cur >= 0 || tmp >= 0, "rename is atomic: the old name or the new one holds a whole version");
  /* tmp may be a version not fsynced yet (the crash came before); cur only
   * ever names an fsynced one. */
  DETSIM_CHECK(cur != -2, "an fsynced file renamed is whole");
  DETSIM_CHECK(cur < 0 || (unsigned)cur >= synced, "a rename synced by its directory's fsync survives");
  DETSIM_SOMETIMES(cur >= 0 && (unsigned)cur < renamed, "an unsynced rename undone");
  DETSIM_SOMETIMES(cur >= 0 && (unsigned)cur == renamed && renamed > synced, "an unsynced rename kept");
}

static void put_version(const char *path, unsigned v) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("open version");
  unsigned char r[REC];
  make(v, r);
  write_all(fd, r, REC, false);
  if (fsync(fd) != 0) die("fsync version");
  close(fd);
}

static void rename_run(void) {
  put_version("disk/cur", 0);
  fsync_dir("disk");
  note("d %u", 0);
  for (unsigned v = 1; v <= RECORDS / 2; v++) {
    put_version("disk/tmp", v);
    if (rename("disk/tmp", "disk/cur") != 0) die("rename");
    note("r %u", v);
    if (v % 10 == 0) {
      fsync_dir("disk");
      note("d %u", v);
    }
    usleep(2000);
  }
}

/* ---- eio: a failed fsync retried; what it held may be gone ---- */

static void eio_check(void) {
  int fd = open("disk/log", O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) die("log after restart");
  unsigned slots = (unsigned)(st.st_size / REC), written = last('w');
  bool lost_behind_failure = false;
  unsigned char buf[REC];
  for (unsigned k = 0; k < written; k++) {
    /* The first sync outcome after record k was written. */
    char first = 0;
    for (unsigned i = 0; i < n_evs && !first; i++)
      if ((evs[i].kind == 's' || evs[i].kind == 'f') && evs[i].n >= k + 1) first = evs[i].kind;
    bool there = k < slots && pread(fd, buf, REC, (off_t)k * REC) == REC && classify(buf, k) == 1;
    DETSIM_CHECK(there || first != 's', "a record synced by a clean fsync survives");
    if (!there && first == 'f') lost_behind_failure = true;
  }
  close(fd);
  unsigned fails = 0;
  for (unsigned i = 0; i < n_evs; i++) fails += evs[i].kind == 'f';
  fprintf(stderr, "disk_node: after the restart: %u records written, %u on disk, %u failed fsyncs%s\n", written, slots,
          fails, lost_behind_failure ? ", a record behind one lost" : "");
  DETSIM_SOMETIMES(lost_behind_failure, "a record behind a failed fsync is lost though its retry returned 0");
}

static void eio_run(void) {
  int fd = open("disk/log", O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) die("open log");
  fsync(fd);
  fsync_dir("disk");
  unsigned char r[REC];
  for (unsigned i = 0; i < RECORDS; i++) {
    make(i, r);
    write_all(fd, r, REC, true);
    note("w %u", i + 1);
    if (i % 4 == 3) {
      if (fsync(fd) != 0) {
        if (errno != EIO) die("fsync");
        DETSIM_SOMETIMES(true, "fsync failed with EIO");
        note("f %u", i + 1);
        DETSIM_CHECK(fsync(fd) == 0, "a retried fsync returns 0, as Linux");
      } else {
        note("s %u", i + 1);
      }
    }
    usleep(2000);
  }
  close(fd);
}

/* ---- enospc: failed and short writes (a full disk, or quota: the
 * enospc and edquot faults); the file holds what they took ---- */

static void enospc_run(void) {
  int fd = open("disk/log", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("open log");
  unsigned char r[REC];
  size_t total = 0;
  for (unsigned i = 0; i < RECORDS; i++) {
    make(i, r);
    size_t done = 0;
    while (done < REC) {
      ssize_t w = write(fd, r + done, REC - done);
      if (w < 0 && (errno == ENOSPC || errno == EDQUOT)) {
        DETSIM_SOMETIMES(errno == ENOSPC, "a write failed with ENOSPC");
        DETSIM_SOMETIMES(errno == EDQUOT, "a write failed with EDQUOT");
        usleep(1000);
        continue;
      }
      if (w < 0) die("write");
      DETSIM_SOMETIMES((size_t)w < REC - done, "a short write");
      done += (size_t)w;
    }
    total += REC;
    usleep(1000);
  }
  unsigned char buf[REC];
  bool same = true;
  for (unsigned i = 0; i < RECORDS; i++)
    if (pread(fd, buf, REC, (off_t)i * REC) != REC || classify(buf, i) != 1) same = false;
  struct stat st;
  fstat(fd, &st);
  DETSIM_CHECK(same && (size_t)st.st_size == total, "the file holds exactly what the writes took");
  close(fd);
}

/* ---- mmap: records stored through shared mappings by two threads (one
 * the even pages, the other the odd ones through a second mapping), a
 * page msync'ed after some stores, the file fsynced by the first thread
 * after others (which must cover the second mapping too); each page must
 * read back as one whole record of its own, never older than its last
 * synced one ---- */

#define MPAGES 8
#define MPG 4096

static void mmap_check(void) {
  /* The oracle: "w N" before record N-1 is stored, "d N" after, "m N"
   * after an msync of its page, "s N" after an fsync of the file. */
  int newest[MPAGES], done[MPAGES], floor[MPAGES];
  for (int p = 0; p < MPAGES; p++) newest[p] = done[p] = floor[p] = -1;
  for (unsigned i = 0; i < n_evs; i++) {
    int seq = (int)evs[i].n - 1, p = seq >= 0 ? seq % MPAGES : 0;
    if (evs[i].kind == 'w' && seq > newest[p]) newest[p] = seq;
    if (evs[i].kind == 'd' && seq > done[p]) done[p] = seq;
    if (evs[i].kind == 'm' && seq > floor[p]) floor[p] = seq;
    if (evs[i].kind == 's')
      for (int q = 0; q < MPAGES; q++)
        if (done[q] > floor[q]) floor[q] = done[q];
  }
  int fd = open("disk/mapped", O_RDONLY);
  if (fd < 0) die("mapped after restart");
  bool lost = false, kept = false;
  for (int p = 0; p < MPAGES; p++) {
    unsigned char buf[REC];
    if (pread(fd, buf, REC, (off_t)p * MPG) != REC) die("pread");
    unsigned seq = 0;
    memcpy(&seq, buf + 4, 4);
    int c = classify(buf, seq);
    bool zeros = classify(buf, 0) == 0;
    int v = zeros ? -1 : c == 1 && (int)(seq % MPAGES) == p ? (int)seq : -2;
    if (v == -2 || v > newest[p] || v < floor[p])
      fprintf(stderr, "disk_node: page %d holds %d (synced %d, newest %d)\n", p, v, floor[p], newest[p]);
    DETSIM_CHECK(v != -2 && v <= newest[p], "a mapped page holds zeros or one whole record stored in it");
    DETSIM_CHECK(v >= floor[p], "an msync'ed or fsynced mapped page survives");
    if (v < done[p]) lost = true;
    if (v > floor[p]) kept = true;
  }
  close(fd);
  DETSIM_SOMETIMES(lost, "an unsynced mapped write lost");
  DETSIM_SOMETIMES(kept, "an unsynced mapped write kept");
}

static void mmap_store(unsigned char *map, unsigned t) {
  unsigned char r[REC];
  make(t, r);
  note("w %u", t + 1);
  memcpy(map + (size_t)(t % MPAGES) * MPG, r, REC);
  note("d %u", t + 1);
  if (t % 5 == 4 || t % 5 == 1) {
    if (msync(map + (size_t)(t % MPAGES) * MPG, MPG, MS_SYNC) != 0) die("msync");
    note("m %u", t + 1);
  }
}

struct mmap_writer {
  unsigned char *map;
  int fd;
  unsigned first;
};

static void *mmap_writer(void *arg) {
  const struct mmap_writer *w = arg;
  for (unsigned t = w->first; t < RECORDS; t += 2) {
    mmap_store(w->map, t);
    if (w->first == 0 && t % 23 == 22) {
      if (fsync(w->fd) != 0) die("fsync");
      note("s %u", t + 1);
    }
    usleep(2000);
  }
  return NULL;
}

static void mmap_run(bool in_child) {
  int fd = open("disk/mapped", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("open mapped");
  if (ftruncate(fd, MPAGES * MPG) != 0 || fsync(fd) != 0) die("ftruncate");
  fsync_dir("disk");
  unsigned char *map = mmap(NULL, MPAGES * MPG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) die("mmap");
  /* The odd pages through a mapping of their own. */
  unsigned char *odd = mmap(NULL, MPAGES * MPG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (odd == MAP_FAILED) die("mmap");
  struct mmap_writer even_w = { map, fd, 0 }, odd_w = { odd, fd, 1 };
  if (in_child) {
    /* The odd pages from a forked process of the node, through the
     * mapping it inherited: its stores are the node's, in the same crash
     * model, and the parent's fsync covers them. */
    pid_t c = fork();
    if (c < 0) die("fork");
    if (c == 0) {
      mmap_writer(&odd_w);
      _exit(0);
    }
    mmap_writer(&even_w);
    int status = 0;
    if (waitpid(c, &status, 0) != c || !WIFEXITED(status) || WEXITSTATUS(status) != 0) die("the forked writer");
    return;
  }
  pthread_t t;
  pthread_create(&t, NULL, mmap_writer, &odd_w);
  mmap_writer(&even_w);
  pthread_join(t, NULL);
}

/* ---- maplimit: a writable shared mapping past the bytes the crash model
 * tracks per node (DETSIM_DISK_MAPPED_BYTES_MAX): the run must end with
 * the limit named, not map it blind ---- */

static void maplimit_run(void) {
  int fd = open("disk/big", O_RDWR | O_CREAT | O_TRUNC, 0644);
  size_t len = (size_t)300 << 20;
  if (fd < 0 || ftruncate(fd, (off_t)len) != 0) die("big file");
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  fprintf(stderr, "disk_node: a 300 MiB writable mapping %s\n", p == MAP_FAILED ? "failed" : "was made");
}

/* ---- tmpfile: records written to unnamed files (O_TMPFILE) and named by
 * linkat (AT_EMPTY_PATH, or /proc/self/fd/N); every fourth fsynced before
 * its link (the atomic-create pattern), the rest not; an unnamed file
 * never linked now and then; a directory fsync every few ---- */

/* 1 the whole record seq, 0 empty, 2 zeros, -1 anything else. */
static int file_holds(const char *path, unsigned seq) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  struct stat st;
  unsigned char buf[REC];
  int c = -1;
  if (fstat(fd, &st) == 0 && st.st_size == 0) c = 0;
  else if (st.st_size == REC && pread(fd, buf, REC, 0) == REC) c = classify(buf, seq) == 1 ? 1 : classify(buf, seq) == 0 ? 2 : -1;
  close(fd);
  return c;
}

static void tmpfile_check(void) {
  unsigned synced = last('d'), linked = last('l');
  /* Only names the workload made are there: no unnamed file surfaced. */
  DIR *d = opendir("disk");
  if (d == NULL) die("opendir");
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    unsigned k;
    char extra;
    if (e->d_name[0] == '.') continue;
    bool ours = sscanf(e->d_name, "t-%u%c", &k, &extra) == 1 && k < linked;
    if (!ours) fprintf(stderr, "disk_node: a stray name %s after the restart\n", e->d_name);
    DETSIM_CHECK(ours, "no name but the links made: an unnamed file never surfaces");
  }
  closedir(d);
  bool gap = false, missing_after_gap = false, lost = false, data_lost = false, any_missing = false;
  for (unsigned k = 0; k < linked; k++) {
    char p[64];
    snprintf(p, sizeof p, "disk/t-%u", k);
    bool there = access(p, F_OK) == 0;
    DETSIM_CHECK(there || k >= synced, "a link synced by its directory's fsync survives");
    if (there) {
      int c = file_holds(p, k);
      if (c != 1 && k % 4 == 0) fprintf(stderr, "disk_node: t-%u holds class %d\n", k, c);
      DETSIM_CHECK(c == 1 || k % 4 != 0, "a file fsynced before its link is whole under its name");
      if (!posix_model) DETSIM_CHECK(c == 1 || c == 0, "ext4: a linked file's unsynced data is whole or absent");
      else DETSIM_CHECK(c >= 0, "a linked file holds its record, nothing or zeros");
      if (c != 1) data_lost = true;
    }
    if (!there) any_missing = true;
    if (!there && k >= synced) lost = true;
    if (there && gap) missing_after_gap = true;
    if (!there) gap = true;
  }
  if (!posix_model) DETSIM_CHECK(!missing_after_gap, "ext4: the links that survive are an in-order prefix");
  DETSIM_SOMETIMES(lost, "an unsynced link lost");
  DETSIM_SOMETIMES(!any_missing && linked > synced, "unsynced links kept");
  DETSIM_SOMETIMES(data_lost, "a linked file's unsynced data lost");
}

static void tmpfile_run(void) {
  unsigned char r[REC];
  for (unsigned v = 0; v < RECORDS / 2; v++) {
    int fd = open("disk", O_TMPFILE | O_RDWR, 0644);
    if (fd < 0) die("open O_TMPFILE");
    make(v, r);
    write_all(fd, r, REC, false);
    if (v % 4 == 0 && fsync(fd) != 0) die("fsync");
    if (v % 3 == 1) { /* one that is never named */
      int orphan = open("disk", O_TMPFILE | O_WRONLY, 0644);
      if (orphan < 0) die("open O_TMPFILE");
      write_all(orphan, r, REC, false);
      close(orphan);
    }
    char name[64], self[64];
    snprintf(name, sizeof name, "disk/t-%u", v);
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    int l = v % 2 ? linkat(AT_FDCWD, self, AT_FDCWD, name, AT_SYMLINK_FOLLOW) : linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
    if (l != 0) die("linkat");
    note("l %u", v + 1);
    close(fd);
    if (v % 5 == 4) {
      fsync_dir("disk");
      note("d %u", v + 1);
    }
    usleep(2000);
  }
}

/* ---- exchange: two files (records 0 and 1, durable) swapped again and
 * again by RENAME_EXCHANGE; a directory fsync every few.  Both names
 * always hold one of the two, never the same one; how many swaps survive
 * shows in which ---- */

static void exchange_check(void) {
  unsigned synced = last('d'), swapped = last('x');
  int a = file_holds("disk/a", 0) == 1 ? 0 : file_holds("disk/a", 1) == 1 ? 1 : -1;
  int b = file_holds("disk/b", 0) == 1 ? 0 : file_holds("disk/b", 1) == 1 ? 1 : -1;
  if (a < 0 || b < 0 || a == b) fprintf(stderr, "disk_node: a holds %d, b holds %d\n", a, b);
  DETSIM_CHECK(a >= 0 && b >= 0 && a != b, "an exchange is atomic: both names, each on its own file");
  /* a holds record (swaps kept) % 2: all synced ones kept, so when every
   * swap was synced the parity is known. */
  if (synced == swapped) DETSIM_CHECK(a == (int)(swapped % 2), "an exchange synced by its directory's fsync survives");
  DETSIM_SOMETIMES(a >= 0 && a != (int)(swapped % 2), "an unsynced exchange undone");
  DETSIM_SOMETIMES(a == (int)(swapped % 2) && swapped > synced, "unsynced exchanges kept");
}

static void exchange_run(void) {
  put_version("disk/a", 0);
  put_version("disk/b", 1);
  fsync_dir("disk");
  note("d %u", 0);
  for (unsigned v = 1; v <= RECORDS / 2; v++) {
    if (renameat2(AT_FDCWD, "disk/a", AT_FDCWD, "disk/b", RENAME_EXCHANGE) != 0) die("renameat2");
    note("x %u", v);
    if (v % 10 == 0) {
      fsync_dir("disk");
      note("d %u", v);
    }
    usleep(2000);
  }
}

/* ---- copy: the log of `log`, built by copy_file_range from a source
 * outside the data directory; the log's rules hold ---- */

static void copy_run(void) {
  int src = open("copy-src", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (src < 0) die("open copy-src");
  unsigned char r[REC];
  for (unsigned i = 0; i < RECORDS; i++) {
    make(i, r);
    write_all(src, r, REC, false);
  }
  int fd = open("disk/log", O_WRONLY | O_CREAT, 0644);
  if (fd < 0) die("open log");
  fsync_dir("disk");
  for (unsigned i = 0; i < RECORDS; i++) {
    off_t in = (off_t)i * REC, out = (off_t)i * REC;
    if (copy_file_range(src, &in, fd, &out, REC, 0) != REC) die("copy_file_range");
    note("w %u", i + 1);
    if (i % 7 == 6) {
      if (fsync(fd) != 0) die("fsync");
      note("s %u", i + 1);
    }
    usleep(2000);
  }
  close(fd);
  close(src);
}

/* ---- collapse: a ring of pages, each one record; the first page cut off
 * by COLLAPSE_RANGE and a new one appended, over and over; an fsync every
 * few.  The file is always one layout (consecutive records from its first
 * page), never a half-shifted one ---- */

#define RING 8

static void collapse_check(void) {
  /* "c N": the first page holds record N; "s N": synced with first N. */
  unsigned first = last('c'), synced = 0;
  for (unsigned i = 0; i < n_evs; i++)
    if (evs[i].kind == 's') synced = evs[i].n;
  int fd = open("disk/ring", O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) die("ring after restart");
  unsigned pages = (unsigned)(st.st_size / MPG), f = 0;
  unsigned char buf[REC];
  if (pread(fd, buf, REC, 0) == REC) memcpy(&f, buf + 4, 4);
  /* Consecutive records from the first page; posix: zero pages may end it
   * (an append's size without its data). */
  bool layout = st.st_size % MPG == 0 && (pages == RING - 1 || pages == RING), zeros = false;
  for (unsigned p = 0; p < pages && layout; p++) {
    if (pread(fd, buf, REC, (off_t)p * MPG) != REC) die("pread");
    int c = classify(buf, f + p);
    if (c == 1 && !zeros) continue;
    if (c == 0 && p > 0 && posix_model) zeros = true;
    else layout = false;
  }
  close(fd);
  if (!layout) fprintf(stderr, "disk_node: ring of %u pages from record %u (collapsed to %u, synced %u)\n", pages, f, first, synced);
  DETSIM_CHECK(layout, "a collapse is whole: the file's pages are consecutive records from its first");
  DETSIM_CHECK(f >= synced && f <= first + 1, "a synced collapse survives; none that was not made");
  DETSIM_SOMETIMES(f < first, "an unsynced collapse undone");
  DETSIM_SOMETIMES(f == first && first > synced, "an unsynced collapse kept");
}

static void put_page(int fd, unsigned seq, off_t at) {
  unsigned char page[MPG];
  memset(page, 0, sizeof page);
  make(seq, page);
  if (pwrite(fd, page, MPG, at) != MPG) die("pwrite page");
}

static void collapse_run(void) {
  int fd = open("disk/ring", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("open ring");
  for (unsigned p = 0; p < RING; p++) put_page(fd, p, (off_t)p * MPG);
  if (fsync(fd) != 0) die("fsync");
  fsync_dir("disk");
  note("c %u", 0);
  note("s %u", 0);
  for (unsigned i = 0; i < RECORDS / 2; i++) {
    if (fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, MPG) != 0) die("fallocate COLLAPSE_RANGE");
    note("c %u", i + 1);
    put_page(fd, i + RING, (off_t)(RING - 1) * MPG);
    if (i % 5 == 4) {
      if (fsync(fd) != 0) die("fsync");
      note("s %u", i + 1);
    }
    usleep(2000);
  }
  close(fd);
}

/* ---- freopen: the log written through stdout reopened onto the disk
 * (its writes a preemption point each: one thread) ---- */

static void freopen_run(void) {
  if (freopen("disk/log", "a", stdout) == NULL) die("freopen log");
  fsync_dir("disk");
  unsigned char r[REC];
  for (unsigned i = 0; i < RECORDS; i++) {
    make(i, r);
    if (fwrite(r, REC, 1, stdout) != 1 || fflush(stdout) != 0) die("fwrite");
    note("w %u", i + 1);
    if (i % 7 == 6) {
      if (fsync(fileno(stdout)) != 0) die("fsync");
      note("s %u", i + 1);
    }
    usleep(2000);
  }
}

/* ---- across: records written outside the data directory and renamed
 * into it (every third renamed out again two steps later); a directory fsync every
 * few.  What came in holds its record; what went out stays out ---- */

static void across_check(void) {
  unsigned synced = last('d'), entered = last('e');
  bool lost = false, kept = false, back = false;
  for (unsigned k = 0; k < entered; k++) {
    char in[64], away[64];
    snprintf(in, sizeof in, "disk/in-%u", k);
    snprintf(away, sizeof away, "away-%u", k);
    bool moved = false;
    for (unsigned i = 0; i < n_evs; i++) moved = moved || (evs[i].kind == 'o' && evs[i].n == k + 1);
    bool there = access(in, F_OK) == 0;
    DETSIM_CHECK(!there || file_holds(in, k) == 1, "a file that entered the disk holds what it held");
    if (moved) {
      DETSIM_CHECK(file_holds(away, k) == 1, "a file moved out of the disk is untouched by a power loss");
      if (there) back = true;
      continue;
    }
    DETSIM_CHECK(there || k >= synced, "an entry synced by its directory's fsync survives");
    if (!there) lost = true;
    if (there && k >= synced) kept = true;
  }
  DETSIM_SOMETIMES(lost, "an unsynced rename into the disk undone");
  DETSIM_SOMETIMES(kept, "an unsynced rename into the disk kept");
  DETSIM_SOMETIMES(back, "an unsynced rename out of the disk undone");
}

static void across_run(void) {
  fsync_dir("disk");
  for (unsigned v = 0; v < RECORDS / 2; v++) {
    char out[64], in[64], away[64];
    snprintf(out, sizeof out, "out-%u", v);
    snprintf(in, sizeof in, "disk/in-%u", v);
    snprintf(away, sizeof away, "away-%u", v);
    /* Outside the data directory a write is real and durable: no fsync
     * (a real one would cost real time). */
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    unsigned char r[REC];
    make(v, r);
    if (fd < 0) die("open outside");
    write_all(fd, r, REC, false);
    close(fd);
    if (rename(out, in) != 0) die("rename in");
    note("e %u", v + 1);
    if (v >= 2 && (v - 2) % 3 == 0) { /* an earlier one leaves */
      snprintf(in, sizeof in, "disk/in-%u", v - 2);
      snprintf(away, sizeof away, "away-%u", v - 2);
      if (rename(in, away) != 0) die("rename out");
      note("o %u", v - 1);
    }
    if (v % 5 == 4) {
      fsync_dir("disk");
      note("d %u", v + 1);
    }
    usleep(2000);
  }
}

/* ---- corrupt: reads back and trusts nothing it cannot check ---- */

static void corrupt_run(void) {
  int fd = open("disk/log", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("open log");
  unsigned char r[REC], buf[REC];
  for (unsigned i = 0; i < RECORDS; i++) {
    make(i, r);
    write_all(fd, r, REC, false);
    ssize_t n = pread(fd, buf, REC, (off_t)i * REC);
    if (n != REC || memcmp(buf, r, REC) != 0) {
      fprintf(stderr, "disk_node: record %u reads back wrong (%s)\n", i, n < 0 ? strerror(errno) : "bytes");
      exit(5); /* the program's own check found it: a failure the fault excuses */
    }
    usleep(1000);
  }
  close(fd);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: disk_node log|stdio|overwrite|names|rename|eio|enospc|corrupt|mmap|mmapfork|maplimit|tmpfile|exchange|copy|collapse|freopen|across ext4|posix\n");
    return 2;
  }
  const char *mode = argv[1];
  posix_model = strcmp(argv[2], "posix") == 0;
  bool restarted = load_oracle();
  if (!restarted) note("b %u", 0);
  if (!strcmp(mode, "log")) restarted ? log_check() : log_run();
  else if (!strcmp(mode, "stdio")) restarted ? log_check() : stdio_run();
  else if (!strcmp(mode, "overwrite")) restarted ? overwrite_check() : overwrite_run();
  else if (!strcmp(mode, "names")) restarted ? names_check() : names_run();
  else if (!strcmp(mode, "rename")) restarted ? rename_check() : rename_run();
  else if (!strcmp(mode, "eio")) restarted ? eio_check() : eio_run();
  else if (!strcmp(mode, "enospc")) { if (!restarted) enospc_run(); }
  else if (!strcmp(mode, "mmap")) restarted ? mmap_check() : mmap_run(false);
  else if (!strcmp(mode, "mmapfork")) restarted ? mmap_check() : mmap_run(true);
  else if (!strcmp(mode, "maplimit")) { if (!restarted) maplimit_run(); }
  else if (!strcmp(mode, "corrupt")) { if (!restarted) corrupt_run(); }
  else if (!strcmp(mode, "tmpfile")) restarted ? tmpfile_check() : tmpfile_run();
  else if (!strcmp(mode, "exchange")) restarted ? exchange_check() : exchange_run();
  else if (!strcmp(mode, "copy")) restarted ? log_check() : copy_run();
  else if (!strcmp(mode, "collapse")) restarted ? collapse_check() : collapse_run();
  else if (!strcmp(mode, "freopen")) restarted ? log_check() : freopen_run();
  else if (!strcmp(mode, "across")) restarted ? across_check() : across_run();
  else return 2;
  /* Stay up: the client ends the world. */
  for (;;) sleep(100);
}
