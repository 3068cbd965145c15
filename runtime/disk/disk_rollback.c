/* A power loss, undone from the journal (docs/disk.md "Crash with loss").
 *
 * Run by the next incarnation of a node that crashed as a dead host, before
 * its main: the records of the journal say what each call changed and what
 * became durable; the seed draws, within what the model (ext4 ordered mode
 * or the weaker POSIX reading) allows, which of the rest survives:
 *  - names: durable once a sync commits them; of the others, ext4 keeps an
 *    in-order prefix (its journal commits in order), POSIX any subset; a
 *    rename is one record, so it is undone whole (old name or new);
 *  - data: a write synced by fsync survives; one before a failed fsync is
 *    lost (Linux dropped its pages); each other write survives, is lost, or
 *    survives torn, per unit (the whole file, a 4 KiB page or a 512-byte
 *    sector, drawn per crash); the file's size is drawn apart from its data
 *    (POSIX: an append's size may survive with zeros for its data; ext4's
 *    ordered mode writes the data before the size that exposes it);
 *  - undo runs from the newest record to the oldest and never writes over
 *    bytes a newer record kept (the protected ranges), so a unit ends as
 *    one of its versions;
 *  - a writable shared mapping's snapshot (disk_map.c) is a write of its
 *    whole range: each unit of it that changed since takes a version as
 *    any write's does, and a file with one tears at least per page (its
 *    pages are written back one by one); msync(MS_SYNC) makes a range
 *    durable (the records before it, within the range) and the file's size
 *    with it.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"
#include "disk/disk.h"
#include "limits.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "world/world.h"

struct rec {
  struct disk_rec_head h;
  char *path, *path2;
  const char *pre;
  unsigned char fate;     /* data records: enum fate, from the records after it */
  bool durable;           /* name records: a later sync made it durable */
  bool first_of_file;     /* data records: the first of its file */
  unsigned until;         /* data records: the first whole-file sync outcome
                             of its file after it (n_recs: none) */
};

struct range {
  int64_t a, b;
};

static struct rec *recs;
static unsigned n_recs;
static struct detsim_rng rng;
static unsigned mode;    /* 0 keep all, 1 lose all it may, else mixed */
static int64_t crash_unit; /* tearing granularity in bytes (INT64_MAX: whole file) */
static int64_t unit;     /* the file's at hand: crash_unit, at most a page when mapped */

static void too_many(const char *what, unsigned long long max) {
  char msg[256];
  snprintf(msg, sizeof msg, "limit %s=%llu reached while rolling the disk back after a power loss", what, max);
  disk_fail(msg);
}

static char *load(size_t *len) {
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/journal", detsim__disk.journal_dir);
  int fd = (int)REAL(open)(path, O_RDONLY | O_CLOEXEC);
  *len = 0;
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0 || (uint64_t)st.st_size > DETSIM_DISK_JOURNAL_BYTES_MAX) {
    REAL(close)(fd);
    disk_fail("the disk's undo journal is unreadable or past its limit");
  }
  char *buf = malloc((size_t)st.st_size + 1);
  if (buf == NULL) disk_fail("out of memory reading the disk's undo journal");
  size_t got = 0;
  while (got < (size_t)st.st_size) {
    ssize_t r = REAL(read)(fd, buf + got, (size_t)st.st_size - got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  REAL(close)(fd);
  *len = got;
  return buf;
}

static char *dup_n(const char *p, size_t n) {
  char *s = malloc(n + 1);
  if (s == NULL) disk_fail("out of memory reading the disk's undo journal");
  memcpy(s, p, n);
  s[n] = '\0';
  return s;
}

static void parse(const char *buf, size_t len) {
  size_t at = 0;
  recs = calloc(DETSIM_DISK_RECORDS_MAX, sizeof *recs);
  if (recs == NULL) disk_fail("out of memory reading the disk's undo journal");
  while (at + sizeof(struct disk_rec_head) <= len) {
    struct disk_rec_head h;
    memcpy(&h, buf + at, sizeof h);
    CHECK_EQ(h.magic, DISK_REC_MAGIC); /* records are whole: a crash never interrupts one */
    size_t need = sizeof h + h.path_len + h.path2_len + h.pre_len;
    CHECK_LE(at + need, len);
    if (n_recs == DETSIM_DISK_RECORDS_MAX) too_many("disk_records", DETSIM_DISK_RECORDS_MAX);
    struct rec *r = &recs[n_recs++];
    r->h = h;
    const char *p = buf + at + sizeof h;
    r->path = dup_n(p, h.path_len);
    r->path2 = dup_n(p + h.path_len, h.path2_len);
    r->pre = p + h.path_len + h.path2_len;
    at += need;
  }
}

/* ---- the files as they are now: inode -> a path ---- */

static struct {
  uint64_t ino;
  char *path;
} files[DETSIM_DISK_SCAN_FILES_MAX];
static unsigned n_files;

static int scan_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)ftw;
  if (type != FTW_F || !S_ISREG(st->st_mode)) return 0;
  if (n_files == DETSIM_DISK_SCAN_FILES_MAX) too_many("disk_scan_files", DETSIM_DISK_SCAN_FILES_MAX);
  files[n_files].ino = st->st_ino;
  files[n_files].path = dup_n(path, strlen(path));
  n_files++;
  return 0;
}

static const char *path_of(uint64_t ino) {
  for (unsigned i = 0; i < n_files; i++)
    if (files[i].ino == ino) return files[i].path;
  return NULL;
}

/* ---- names ---- */

static bool is_name(const struct rec *r) {
  return r->h.type == DISK_REC_CREATE || r->h.type == DISK_REC_UNLINK || r->h.type == DISK_REC_RENAME ||
         r->h.type == DISK_REC_LINK || r->h.type == DISK_REC_EXCHANGE || r->h.type == DISK_REC_ENTER;
}

static void parent(const char *p, char *out, size_t n) {
  snprintf(out, n, "%s", p);
  char *s = strrchr(out, '/');
  if (s && s != out) *s = '\0';
}

static bool is_data(const struct rec *r) {
  return r->h.type == DISK_REC_WRITE || r->h.type == DISK_REC_SIZE || r->h.type == DISK_REC_MAP ||
         r->h.type == DISK_REC_SHIFT;
}

static bool name_durable(unsigned i) { return recs[i].durable; }

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  if (type == FTW_DP) REAL(rmdir)(path);
  else REAL(unlink)(path);
  return 0;
}

/* Undoes name record r; what no longer exists to undo (it depended on an
 * undone record) is skipped. */
static void undo_name(const struct rec *r) {
  switch (r->h.type) {
  case DISK_REC_CREATE:
    if (r->h.len) nftw(r->path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    else REAL(unlink)(r->path);
    break;
  case DISK_REC_UNLINK:
    if (r->h.len) REAL(mkdir)(r->path, 0755);
    else if (r->path2[0]) REAL(link)(r->path2, r->path);
    break;
  case DISK_REC_RENAME:
    REAL(rename)(r->path2, r->path);
    if (r->h.pre_len) {
      char *keep = dup_n(r->pre, r->h.pre_len);
      REAL(link)(keep, r->path2);
      free(keep);
    }
    break;
  case DISK_REC_LINK: REAL(unlink)(r->path2); break;
  case DISK_REC_EXCHANGE: REAL(renameat2)(AT_FDCWD, r->path, AT_FDCWD, r->path2, RENAME_EXCHANGE); break;
  case DISK_REC_ENTER: {
    /* The name that came from outside goes (its file was never the
     * disk's), what it replaced comes back. */
    struct stat st;
    if (lstat(r->path2, &st) == 0 && S_ISDIR(st.st_mode)) nftw(r->path2, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    else REAL(unlink)(r->path2);
    if (r->h.pre_len) {
      char *keep = dup_n(r->pre, r->h.pre_len);
      REAL(link)(keep, r->path2);
      free(keep);
    }
    break;
  }
  default: break;
  }
}

static uint64_t roll_names(void) {
  bool *undo = calloc(n_recs ? n_recs : 1, sizeof *undo);
  if (undo == NULL) disk_fail("out of memory rolling the disk back");
  unsigned m = 0;
  for (unsigned i = 0; i < n_recs; i++)
    if (is_name(&recs[i]) && !name_durable(i)) m++;
  /* ext4: an in-order prefix of them survives; POSIX: any subset. */
  unsigned keep = mode == 0 ? m : mode == 1 ? 0 : (unsigned)detsim__rng_below(&rng, m + 1);
  unsigned seen = 0;
  for (unsigned i = 0; i < n_recs; i++) {
    if (!is_name(&recs[i]) || name_durable(i)) continue;
    bool kept;
    if (detsim__disk.model == DISK_MODEL_EXT4) kept = seen < keep;
    else kept = mode == 0 ? true : mode == 1 ? false : detsim__rng_below(&rng, 2) == 0;
    seen++;
    undo[i] = !kept;
  }
  uint64_t lost = 0;
  for (unsigned i = n_recs; i-- > 0;)
    if (undo[i]) {
      undo_name(&recs[i]);
      lost++;
    }
  free(undo);
  return lost;
}

/* ---- data ---- */

enum fate { FATE_DURABLE, FATE_FORCED_LOST, FATE_DRAWN };


static enum fate fate_of(unsigned i) { return (enum fate)recs[i].fate; }

/* The files' inodes met so far, for the passes below (open addressing). */
#define INO_SLOTS (2 * DETSIM_DISK_SCAN_FILES_MAX)
static struct {
  uint64_t ino;
  unsigned at; /* the newest whole-file sync outcome seen (classify) */
  unsigned char state;
  bool used;
} inos[INO_SLOTS];

static unsigned ino_slot(uint64_t ino) {
  unsigned h = (unsigned)((ino * 0x9e3779b97f4a7c15ull) >> 40) % INO_SLOTS;
  for (unsigned n = 0; n < INO_SLOTS; n++, h = (h + 1) % INO_SLOTS)
    if (!inos[h].used || inos[h].ino == ino) {
      if (!inos[h].used) inos[h].used = true, inos[h].ino = ino, inos[h].state = FATE_DRAWN, inos[h].at = n_recs;
      return h;
    }
  too_many("disk_scan_files", INO_SLOTS);
  return 0;
}

/* Each data record's fate is the first sync outcome of its file after it
 * (newest to oldest: the last one seen); each name record is durable when
 * a later sync covers it (ext4: any fsync commits the journal with every
 * name before it; POSIX: a fsync of its directory). */
static void classify(void) {
  memset(inos, 0, sizeof inos);
  bool all = false, any_sync = false;
  static char synced_dirs[64][PATH_MAX];
  unsigned n_dirs = 0;
  bool dirs_overflow = false;
  for (unsigned i = n_recs; i-- > 0;) {
    struct rec *r = &recs[i];
    switch (r->h.type) {
    case DISK_REC_SYNCALL: all = true; break;
    case DISK_REC_FSYNC:
    case DISK_REC_FSYNC_FAIL: {
      unsigned s = ino_slot(r->h.ino);
      inos[s].state = r->h.type == DISK_REC_FSYNC ? FATE_DURABLE : FATE_FORCED_LOST;
      inos[s].at = i;
      any_sync = true;
      break;
    }
    case DISK_REC_MSYNC: any_sync = true; break; /* ext4: its journal commit takes every name before it */
    case DISK_REC_DIRSYNC:
      any_sync = true;
      if (n_dirs < 64) snprintf(synced_dirs[n_dirs++], PATH_MAX, "%s", r->path);
      else dirs_overflow = true; /* more synced directories than it tracks: counted as durable */
      break;
    case DISK_REC_WRITE:
    case DISK_REC_SIZE:
    case DISK_REC_MAP:
    case DISK_REC_SHIFT: {
      unsigned s = ino_slot(r->h.ino);
      r->fate = all ? FATE_DURABLE : inos[s].state;
      r->until = inos[s].at;
      break;
    }
    default: {
      /* The directory whose fsync makes it durable (an exchange: both). */
      char dir[PATH_MAX], dir2[PATH_MAX];
      bool second = r->h.type == DISK_REC_RENAME || r->h.type == DISK_REC_LINK || r->h.type == DISK_REC_ENTER;
      parent(second ? r->path2 : r->path, dir, sizeof dir);
      if (r->h.type == DISK_REC_EXCHANGE) parent(r->path2, dir2, sizeof dir2);
      else snprintf(dir2, sizeof dir2, "%s", dir);
      bool d = all || dirs_overflow || (detsim__disk.model == DISK_MODEL_EXT4 && any_sync);
      bool d1 = d, d2 = d;
      for (unsigned k = 0; k < n_dirs; k++) {
        d1 = d1 || strcmp(synced_dirs[k], dir) == 0;
        d2 = d2 || strcmp(synced_dirs[k], dir2) == 0;
      }
      r->durable = d1 && d2;
      break;
    }
    }
  }
  /* The first record of each file, oldest first. */
  memset(inos, 0, sizeof inos);
  for (unsigned i = 0; i < n_recs; i++) {
    struct rec *r = &recs[i];
    if (r->h.type == DISK_REC_BORN) inos[ino_slot(r->h.ino)].state = 0; /* a new file of that number */
    if (!is_data(r)) continue;
    unsigned s = ino_slot(r->h.ino);
    r->first_of_file = inos[s].state != 1;
    inos[s].state = 1;
  }
}

/* The largest size the file at hand had in its records or has now: a
 * mapping's range past it was never there to change. */
static int64_t file_max;

/* The byte range a data record changed, with its pre-image's extent. */
static struct range changed(const struct rec *r) {
  if (r->h.type == DISK_REC_WRITE) return (struct range){ r->h.off, r->h.off + (int64_t)r->h.len };
  if (r->h.type == DISK_REC_MAP) {
    int64_t b = r->h.off + (int64_t)r->h.len;
    return (struct range){ r->h.off, b < file_max ? b : file_max };
  }
  if (r->h.type == DISK_REC_SHIFT) /* every byte past off moved */
    return (struct range){ r->h.off, (int64_t)r->h.len > r->h.old_size ? (int64_t)r->h.len : r->h.old_size };
  /* A size change: the bytes it cut (restored by undo), or none. */
  if (r->h.off < r->h.old_size) return (struct range){ r->h.off, r->h.old_size };
  return (struct range){ 0, 0 };
}

static int64_t size_after(const struct rec *r) {
  if (r->h.type == DISK_REC_SIZE) return r->h.off;
  if (r->h.type == DISK_REC_MAP) return r->h.old_size; /* stores never grow a file */
  if (r->h.type == DISK_REC_SHIFT) return (int64_t)r->h.len;
  int64_t end = r->h.off + (int64_t)r->h.len;
  return end > r->h.old_size ? end : r->h.old_size;
}

struct unit_choice {
  int64_t unit;
  unsigned version;
};

struct file_roll {
  unsigned drawn[DETSIM_DISK_RECORDS_PER_FILE_MAX]; /* record indices, in order */
  unsigned k;
  unsigned size_version;
  struct unit_choice units[DETSIM_DISK_UNITS_PER_FILE_MAX];
  unsigned n_units;
  struct range prot[DETSIM_DISK_RECORDS_PER_FILE_MAX];
  unsigned n_prot;
  unsigned seg_lo, seg_hi; /* the versions the file's shifts allow (choose_segment) */
};
static struct file_roll fr;

/* Ext4 ordered mode: the data an exposed append wrote is there before the
 * size that exposes it; the lowest version unit u may take. */
static unsigned lowest_version(int64_t u) {
  if (detsim__disk.model != DISK_MODEL_EXT4) return 0;
  unsigned lo = 0;
  for (unsigned t = 1; t <= fr.size_version; t++) {
    const struct rec *r = &recs[fr.drawn[t - 1]];
    if (r->h.type != DISK_REC_WRITE) continue;
    int64_t a = r->h.old_size > r->h.off ? r->h.old_size : r->h.off, b = r->h.off + (int64_t)r->h.len;
    if (a >= b) continue;
    int64_t ua = unit == INT64_MAX ? 0 : a / unit, ub = unit == INT64_MAX ? 0 : (b - 1) / unit;
    if (u >= ua && u <= ub) lo = t;
  }
  return lo;
}

static unsigned version_of(int64_t u) {
  for (unsigned i = 0; i < fr.n_units; i++)
    if (fr.units[i].unit == u) return fr.units[i].version;
  if (fr.n_units == DETSIM_DISK_UNITS_PER_FILE_MAX) too_many("disk_units_per_file", DETSIM_DISK_UNITS_PER_FILE_MAX);
  unsigned lo = lowest_version(u), hi = fr.seg_hi;
  if (lo < fr.seg_lo) lo = fr.seg_lo;
  if (lo > hi) lo = hi;
  unsigned v = mode == 0 ? hi : mode == 1 ? lo : lo + (unsigned)detsim__rng_below(&rng, hi - lo + 1);
  fr.units[fr.n_units++] = (struct unit_choice){ u, v };
  return v;
}

static void protect(int64_t a, int64_t b) {
  if (fr.n_prot > 0 && fr.prot[fr.n_prot - 1].b == a && fr.prot[fr.n_prot - 1].a <= a) {
    fr.prot[fr.n_prot - 1].b = b; /* a mapping's next page */
    return;
  }
  if (fr.n_prot == DETSIM_DISK_RECORDS_PER_FILE_MAX) too_many("disk_records_per_file", DETSIM_DISK_RECORDS_PER_FILE_MAX);
  fr.prot[fr.n_prot++] = (struct range){ a, b };
}

static const char *target(const struct rec *r, int64_t y, int64_t *n);

/* Writes the record's pre-image over [a, b), except the protected bytes
 * (a mapping's, only over what exists of the file now: past its end
 * nothing was stored). */
static void restore(int fd, const struct rec *r, int64_t a, int64_t b) {
  struct stat st;
  if (r->h.type == DISK_REC_MAP && fstat(fd, &st) == 0 && b > st.st_size) b = st.st_size;
  for (int64_t x = a; x < b;) {
    /* The next protected byte at or after x, and whether x is protected. */
    int64_t stop = b;
    bool covered = false;
    for (unsigned i = 0; i < fr.n_prot; i++) {
      const struct range *p = &fr.prot[i];
      if (p->a <= x && x < p->b) {
        covered = true;
        if (p->b < stop || stop == b) stop = p->b < b ? p->b : b;
      }
    }
    if (covered) {
      x = stop;
      continue;
    }
    for (unsigned i = 0; i < fr.n_prot; i++)
      if (fr.prot[i].a > x && fr.prot[i].a < stop) stop = fr.prot[i].a;
    for (int64_t y = x; y < stop;) {
      int64_t n = stop - y;
      const char *src = target(r, y, &n); /* past the old size: nothing was there */
      if (REAL(pwrite)(fd, src, (size_t)n, y) != n) disk_fail("cannot write a file back while rolling the disk back");
      y += n;
    }
    x = stop;
  }
}

/* The ranged syncs (msync MS_SYNC) of the file at hand. */
static struct {
  unsigned at;
  int64_t a, b;
} msyncs[DETSIM_DISK_RECORDS_PER_FILE_MAX];
static unsigned n_msyncs;

/* Whether [a, b) of record i is durable by an msync after it (and before
 * its file's first whole-file outcome: a failed fsync dropped it first). */
static bool range_synced(unsigned i, int64_t a, int64_t b) {
  for (unsigned k = 0; k < n_msyncs; k++)
    if (msyncs[k].at > i && msyncs[k].at < recs[i].until && msyncs[k].a <= a && b <= msyncs[k].b) return true;
  return false;
}

/* The end of the piece of a record's change starting at a: the unit's
 * end, or an msync's boundary before it, so each piece is inside or
 * outside each synced range. */
static int64_t piece_end(int64_t a, int64_t end) {
  int64_t b = unit == INT64_MAX ? end : (a / unit + 1) * unit;
  if (b > end) b = end;
  for (unsigned k = 0; k < n_msyncs; k++) {
    if (msyncs[k].a > a && msyncs[k].a < b) b = msyncs[k].a;
    if (msyncs[k].b > a && msyncs[k].b < b) b = msyncs[k].b;
  }
  return b;
}

/* What undoing [a, b) of r would write: its pre-image, zeros past it. */
static const char *target(const struct rec *r, int64_t y, int64_t *n) {
  static const char zeros[4096];
  int64_t in_pre = y - r->h.off;
  if (in_pre >= 0 && (uint64_t)in_pre < r->h.pre_len) {
    if ((uint64_t)*n > r->h.pre_len - (uint64_t)in_pre) *n = (int64_t)(r->h.pre_len - (uint64_t)in_pre);
    return r->pre + in_pre;
  }
  if (*n > (int64_t)sizeof zeros) *n = (int64_t)sizeof zeros;
  return zeros;
}

/* A mapping's snapshot over [a, b): whether the file there (what exists
 * of it now) differs from it.  A page no store changed since is no
 * version of its own: it draws nothing and is no loss. */
static bool map_piece_changed(int fd, const struct rec *r, int64_t a, int64_t b) {
  struct stat st;
  if (fstat(fd, &st) != 0) return true;
  if (b > st.st_size) b = st.st_size;
  char buf[4096];
  for (int64_t y = a; y < b;) {
    int64_t n = b - y < (int64_t)sizeof buf ? b - y : (int64_t)sizeof buf;
    const char *want = target(r, y, &n);
    if (REAL(pread)(fd, buf, (size_t)n, y) != n || memcmp(buf, want, (size_t)n) != 0) return true;
    y += n;
  }
  return false;
}

/* A shift (fallocate COLLAPSE_RANGE, INSERT_RANGE) survives whole or not
 * at all: ext4 writes the file's dirty pages back, then moves its extents
 * in one journal transaction.  So the file's records after a shift survive
 * only with it, and with it every record before it (written back first):
 * each version the file takes (its size's, each unit's) lies in one
 * segment between two of its drawn shifts, drawn once per file.  A shift
 * an msync came after is durable (ext4's ranged sync commits the journal). */
static void choose_segment(void) {
  static unsigned shifts[DETSIM_DISK_RECORDS_PER_FILE_MAX];
  unsigned m = 0, j_min = 0;
  for (unsigned t = 1; t <= fr.k; t++) {
    unsigned i = fr.drawn[t - 1];
    if (recs[i].h.type != DISK_REC_SHIFT) continue;
    shifts[m++] = t;
    for (unsigned q = 0; q < n_msyncs; q++)
      if (msyncs[q].at > i && msyncs[q].at < recs[i].until) j_min = m;
  }
  fr.seg_lo = 0;
  fr.seg_hi = fr.k;
  if (m == 0) return; /* no draw: a file without shifts rolls as it always did */
  unsigned j = mode == 0 ? m : mode == 1 ? j_min : j_min + (unsigned)detsim__rng_below(&rng, m - j_min + 1);
  fr.seg_lo = j == 0 ? 0 : shifts[j - 1];
  fr.seg_hi = j == m ? fr.k : shifts[j] - 1;
}

/* Rolls the file whose first record is `at`.  An inode number may have
 * been several files (an unnamed one closed, the number given out again):
 * only the one it is now, from its birth on, has anything to roll; a dead
 * one, or a file no name reaches, draws nothing, so the draws never depend
 * on which numbers the file system reused. */
static uint64_t roll_file(uint64_t ino, unsigned at) {
  unsigned born = 0;
  for (unsigned i = 0; i < n_recs; i++)
    if (recs[i].h.type == DISK_REC_BORN && recs[i].h.ino == ino) born = i;
  if (at < born) return 0;
  const char *path = path_of(ino);
  if (path == NULL) return 0; /* no name reaches it any more: nothing to roll */
  memset(&fr, 0, offsetof(struct file_roll, units));
  fr.n_units = fr.n_prot = 0;
  n_msyncs = 0;
  bool mapped = false;
  file_max = 0;
  for (unsigned i = born; i < n_recs; i++) {
    const struct rec *r = &recs[i];
    if (r->h.ino != ino) continue;
    if (r->h.type == DISK_REC_MSYNC) {
      if (n_msyncs == DETSIM_DISK_RECORDS_PER_FILE_MAX) too_many("disk_records_per_file", DETSIM_DISK_RECORDS_PER_FILE_MAX);
      msyncs[n_msyncs++] = (typeof(msyncs[0])){ i, r->h.off, r->h.off + (int64_t)r->h.len };
      continue;
    }
    if (!is_data(r)) continue;
    if (r->h.old_size > file_max) file_max = r->h.old_size;
    if (r->h.type != DISK_REC_MAP && size_after(r) > file_max) file_max = size_after(r);
    if (r->h.type == DISK_REC_MAP && fate_of(i) != FATE_DURABLE) mapped = true;
    if (fate_of(i) == FATE_DRAWN) {
      if (fr.k == DETSIM_DISK_RECORDS_PER_FILE_MAX) too_many("disk_records_per_file", DETSIM_DISK_RECORDS_PER_FILE_MAX);
      fr.drawn[fr.k++] = i;
    }
  }
  /* An msync made the size durable: it keeps at least the records before
   * the last one. */
  unsigned lo_size = 0;
  for (unsigned k = 0; k < n_msyncs; k++) {
    unsigned before = 0;
    while (before < fr.k && fr.drawn[before] < msyncs[k].at) before++;
    if (before > lo_size) lo_size = before;
  }
  choose_segment();
  unsigned hi_size = fr.seg_hi;
  if (lo_size < fr.seg_lo) lo_size = fr.seg_lo;
  if (lo_size > hi_size) lo_size = hi_size;
  fr.size_version = mode == 0   ? hi_size
                    : mode == 1 ? lo_size
                                : lo_size + (unsigned)detsim__rng_below(&rng, hi_size - lo_size + 1);
  /* Mapped pages are written back one by one: such a file tears at
   * least per page. */
  unit = mapped && crash_unit > 4096 ? 4096 : crash_unit;
  int fd = (int)REAL(open)(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > file_max) file_max = st.st_size;
  uint64_t lost = 0;
  unsigned t = fr.k; /* the drawn rank of the record at hand, 1-based */
  for (unsigned i = n_recs; i-- > 0;) {
    const struct rec *r = &recs[i];
    if (!is_data(r) || r->h.ino != ino || i < born) continue;
    enum fate f = fate_of(i);
    unsigned rank = f == FATE_DRAWN ? t-- : 0;
    bool is_map = r->h.type == DISK_REC_MAP;
    struct range c = changed(r);
    bool any_lost = false;
    for (int64_t a = c.a; a < c.b;) {
      int64_t b = piece_end(a, c.b);
      int64_t u = unit == INT64_MAX ? 0 : a / unit;
      bool durable = f == FATE_DURABLE || range_synced(i, a, b);
      if (!durable && is_map && !map_piece_changed(fd, r, a, b)) {
        a = b;
        continue;
      }
      bool kept = durable || (f == FATE_DRAWN && rank <= version_of(u));
      if (kept) protect(a, b);
      else {
        restore(fd, r, a, b);
        any_lost = true;
      }
      a = b;
    }
    if (f == FATE_FORCED_LOST && !is_map) any_lost = true;
    if (f == FATE_DRAWN && rank > fr.size_version && r->h.type == DISK_REC_SIZE) any_lost = true;
    lost += any_lost;
  }
  if (fr.k > 0) {
    const struct rec *first = &recs[fr.drawn[0]];
    int64_t size = fr.size_version == 0 ? first->h.old_size : size_after(&recs[fr.drawn[fr.size_version - 1]]);
    if (REAL(ftruncate)(fd, size) != 0) disk_fail("cannot size a file back while rolling the disk back");
  }
  REAL(close)(fd);
  return lost;
}

static uint64_t roll_data(void) {
  uint64_t lost = 0;
  /* Each file once, in the order of its first record. */
  for (unsigned i = 0; i < n_recs; i++)
    if (is_data(&recs[i]) && recs[i].first_of_file) lost += roll_file(recs[i].h.ino, i);
  return lost;
}

void disk_rollback(uint64_t *lost_writes, uint64_t *lost_names) {
  char label[96];
  detsim__world_label(label, sizeof label, "disk/crash");
  detsim__rng_init(&rng, detsim__seed_child(detsim__disk.seed, label));
  mode = (unsigned)detsim__rng_below(&rng, 4);
  static const int64_t units[] = { INT64_MAX, 4096, 512 };
  crash_unit = units[detsim__rng_below(&rng, 3)];
  size_t len;
  char *buf = load(&len);
  if (buf) parse(buf, len);
  n_files = 0;
  nftw(detsim__disk.data, scan_one, 16, FTW_PHYS);
  nftw(detsim__disk.journal_dir, scan_one, 16, FTW_PHYS);
  classify();
  /* Data first, through the names as the crash left them; then names. */
  *lost_writes = roll_data();
  *lost_names = roll_names();
  for (unsigned i = 0; i < n_recs; i++) {
    free(recs[i].path);
    free(recs[i].path2);
  }
  for (unsigned i = 0; i < n_files; i++) free(files[i].path);
  free(recs);
  recs = NULL;
  n_recs = 0;
  free(buf);
  disk_journal_reset();
}
