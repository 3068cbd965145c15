/* Shared mappings of files on the simulated disk (docs/disk.md, "Mapped
 * files").
 *
 * A MAP_SHARED mapping of a file of the disk is the kernel's: the threads
 * and the processes of a node see each other's stores at once, through the
 * page cache, as on Linux.  What the simulation adds is the crash model: a
 * store through a writable mapping is no call the journal could see, so the
 * journal snapshots the mapped range when it becomes writable (mmap with
 * PROT_WRITE, mprotect adding it, mremap's growth) and again whenever the
 * range is synced (msync with MS_SYNC, fsync of the file, sync or syncfs):
 * the rollback takes each snapshot for a write of the whole range whose
 * pre-image it is, so every page of it that changed since takes one of its
 * versions at a power loss.
 *
 * The mappings are tracked in one table per node, so that a sync in one
 * process snapshots again what another process maps: a file in the node's
 * journal directory that each of its processes maps (they run one at a
 * time, so no lock is needed); without a journal (one program, or below
 * level 3) a table of the process's own, which only tells msync which
 * mappings are on the disk.  An entry names its owner by the world slot of
 * its process; a slot whose process ended (or was replaced by an exec)
 * owns nothing any more.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk/disk.h"
#include "limits.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "world/world.h"

#define PAGE 4096ull

struct map_entry {
  uint32_t used, owner;   /* owner: the world slot of the process */
  uint32_t writable, file; /* file: its index in files */
  uint64_t addr, len;     /* in the owner's address space, whole pages */
  int64_t off;            /* the file offset that addr maps */
};

struct map_file {
  uint64_t dev, ino;
  char path[PATH_MAX];    /* where it was when mapped (a rename is found again by a scan) */
};

struct map_table {
  uint32_t used;          /* entries in use, dead owners' included */
  uint32_t pad;
  struct map_entry e[DETSIM_DISK_MAPS_MAX];
  struct map_file f[DETSIM_DISK_MAPPED_FILES_MAX];
};

static struct map_table *T;
static bool shared;     /* the node's table (a journal), not the process's */
static unsigned mine;   /* entries this process owns (a fork's child inherits them) */

static uint64_t page_up(uint64_t n) { return (n + PAGE - 1) & ~(PAGE - 1); }

static uint32_t me(void) { return detsim__in_world ? detsim__node_index : 0; }

static bool owner_alive(uint32_t slot) {
  if (slot == me() || !shared) return true;
  if (!detsim__in_world || slot >= DETSIM_WORLD_NODES_MAX) return false;
  uint32_t st = __atomic_load_n(&detsim__ws->nodes[slot].state, __ATOMIC_ACQUIRE);
  return st == DETSIM_NODE_STARTING || st == DETSIM_NODE_READY;
}

static bool live(const struct map_entry *e) { return e->used && owner_alive(e->owner); }

static _Noreturn void limit(const char *name, const char *macro, unsigned long long max, const char *what) {
  char msg[512];
  snprintf(msg, sizeof msg, "limit %s=%llu reached: %s (%s in runtime/limits.h)", name, max, what, macro);
  disk_fail(msg);
}

static struct map_table *table(void) {
  if (T) return T;
  void *p;
  if (detsim__disk.journal) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/maps", detsim__disk.journal_dir);
    int fd = (int)REAL(open)(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) disk_fail("cannot open the disk's table of shared mappings");
    if ((uint64_t)st.st_size < sizeof *T && REAL(ftruncate)(fd, (off_t)sizeof *T) != 0)
      disk_fail("cannot size the disk's table of shared mappings");
    p = REAL(mmap)(NULL, sizeof *T, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    REAL(close)(fd);
    shared = true;
  } else {
    p = REAL(mmap)(NULL, sizeof *T, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }
  if (p == MAP_FAILED) disk_fail("cannot map the disk's table of shared mappings");
  T = p;
  return T;
}

/* ---- the table ---- */

static void drop(struct map_entry *e) {
  if (!e->used) return;
  if (e->owner == me() && mine > 0) mine--;
  e->used = 0;
  T->used--;
}

static struct map_entry *add(uint64_t addr, uint64_t len, int64_t off, uint32_t file, bool writable) {
  struct map_table *t = table();
  for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX; i++) {
    struct map_entry *e = &t->e[i];
    if (e->used && live(e)) continue;
    if (e->used) drop(e); /* a dead owner's */
    *e = (struct map_entry){ 1, me(), writable, file, addr, len, off };
    t->used++;
    mine++;
    return e;
  }
  limit("disk_maps", "DETSIM_DISK_MAPS_MAX", DETSIM_DISK_MAPS_MAX, "more shared mappings of files of the simulated disk than that, over the "
                                            "node's processes (munmap gives them back)");
}

static bool file_referenced(unsigned f) {
  for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX; i++)
    if (T->e[i].file == f && live(&T->e[i])) return true;
  return false;
}

static uint32_t file_slot(uint64_t dev, uint64_t ino, const char *path) {
  struct map_table *t = table();
  int free_slot = -1;
  for (unsigned f = 0; f < DETSIM_DISK_MAPPED_FILES_MAX; f++) {
    bool ref = file_referenced(f);
    if (ref && t->f[f].dev == dev && t->f[f].ino == ino) return f;
    if (!ref && free_slot < 0) free_slot = (int)f;
  }
  if (free_slot < 0)
    limit("disk_mapped_files", "DETSIM_DISK_MAPPED_FILES_MAX", DETSIM_DISK_MAPPED_FILES_MAX, "more distinct files of the simulated disk mapped shared "
                                                             "than that at once, over the node's processes");
  struct map_file *m = &t->f[free_slot];
  m->dev = dev;
  m->ino = ino;
  snprintf(m->path, sizeof m->path, "%s", path);
  return (uint32_t)free_slot;
}

static uint64_t writable_bytes(void) {
  uint64_t n = 0;
  for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX; i++)
    if (live(&T->e[i]) && T->e[i].writable) n += T->e[i].len;
  return n;
}

static void check_bytes(uint64_t more) {
  if (!detsim__disk.journal) return;
  table();
  if (writable_bytes() + more > DETSIM_DISK_MAPPED_BYTES_MAX)
    limit("disk_mapped_bytes", "DETSIM_DISK_MAPPED_BYTES_MAX", DETSIM_DISK_MAPPED_BYTES_MAX,
          "the node's writable shared mappings of files of the simulated disk would cover more bytes than that (each "
          "is snapshotted into the undo journal when it becomes writable and when it is synced)");
}

/* This process's entries lose [a, b) (an munmap, a mapping put over it). */
static void cut(uint64_t a, uint64_t b) {
  if (mine == 0 || a >= b) return;
  for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX; i++) {
    struct map_entry *e = &T->e[i];
    if (!e->used || e->owner != me()) continue;
    uint64_t ea = e->addr, eb = e->addr + e->len;
    if (eb <= a || b <= ea) continue;
    if (ea < a && b < eb) {
      add(b, eb - b, e->off + (int64_t)(b - ea), e->file, e->writable);
      e->len = a - ea;
    } else if (ea < a) {
      e->len = a - ea;
    } else if (b < eb) {
      e->off += (int64_t)(b - ea);
      e->addr = b;
      e->len = eb - b;
    } else {
      drop(e);
    }
  }
}

/* ---- snapshots ---- */

static struct {
  uint64_t dev, ino;
  char *out;
} finding;

static int find_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)ftw;
  if (type != FTW_F || st->st_dev != finding.dev || st->st_ino != finding.ino) return 0;
  snprintf(finding.out, PATH_MAX, "%s", path);
  return 1;
}

/* A descriptor reading mapped file f: by its path, or (renamed since, or
 * unlinked with its undo link in the journal) found again by its inode;
 * -1 when no name reaches it any more (a power loss cannot bring it back:
 * its stores do not matter). */
static int file_reader(uint32_t f) {
  struct map_file *m = &T->f[f];
  int fd = (int)REAL(open)(m->path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == m->dev && st.st_ino == m->ino) return fd;
  if (fd >= 0) REAL(close)(fd);
  finding.dev = m->dev;
  finding.ino = m->ino;
  finding.out = m->path;
  if (nftw(detsim__disk.data, find_one, 16, FTW_PHYS) != 1 && nftw(detsim__disk.journal_dir, find_one, 16, FTW_PHYS) != 1)
    return -1;
  return (int)REAL(open)(m->path, O_RDONLY | O_CLOEXEC);
}

/* The journal's snapshot of file range [a, b) of f, read from readfd (or
 * the file found again). */
static void snapshot(uint32_t f, int64_t a, int64_t b, int readfd) {
  if (!detsim__disk.journal || a >= b) return;
  int fd = readfd >= 0 ? readfd : file_reader(f);
  struct stat st;
  if (fd < 0) return;
  if (fstat(fd, &st) == 0) disk_journal_map(T->f[f].ino, T->f[f].path, a, (uint64_t)(b - a), st.st_size, fd);
  if (fd != readfd) REAL(close)(fd);
}

struct range {
  int64_t a, b;
};

/* Snapshots again the parts of [a, b) of f that a live writable mapping
 * of the node covers, each part once. */
static void rearm_range(uint32_t f, int64_t a, int64_t b, int readfd) {
  static struct range r[DETSIM_DISK_MAPS_MAX];
  unsigned n = 0;
  for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX; i++) {
    const struct map_entry *e = &T->e[i];
    if (!live(e) || !e->writable || e->file != f) continue;
    int64_t ea = e->off > a ? e->off : a, eb = e->off + (int64_t)e->len < b ? e->off + (int64_t)e->len : b;
    if (ea >= eb) continue;
    unsigned k = n++; /* kept in order of their start */
    while (k > 0 && r[k - 1].a > ea) {
      r[k] = r[k - 1];
      k--;
    }
    r[k] = (struct range){ ea, eb };
  }
  int fd = readfd >= 0 || n == 0 ? readfd : file_reader(f);
  if (n > 0 && fd < 0) return;
  for (unsigned i = 0; i < n;) {
    struct range u = r[i++];
    while (i < n && r[i].a <= u.b) {
      if (r[i].b > u.b) u.b = r[i].b;
      i++;
    }
    snapshot(f, u.a, u.b, fd);
  }
  if (fd >= 0 && fd != readfd) REAL(close)(fd);
}

bool disk_map_any(void) { return T != NULL && T->used > 0; }

void disk_map_rearm_file(uint64_t dev, uint64_t ino, int readfd) {
  if (!disk_map_any()) return;
  for (unsigned f = 0; f < DETSIM_DISK_MAPPED_FILES_MAX; f++)
    if (T->f[f].dev == dev && T->f[f].ino == ino && file_referenced(f)) rearm_range(f, 0, INT64_MAX, readfd);
}

void disk_map_rearm_all(void) {
  if (!disk_map_any()) return;
  for (unsigned f = 0; f < DETSIM_DISK_MAPPED_FILES_MAX; f++)
    if (file_referenced(f)) rearm_range(f, 0, INT64_MAX, -1);
}

void disk_map_forget_all(void) {
  if (T == NULL) return;
  memset(T->e, 0, sizeof T->e);
  T->used = 0;
  mine = 0;
}

void disk_map_init(void) {
  if (!detsim__disk.journal) return;
  /* Every process of the node maps the table: a sync in one of them must
   * see what the others map. */
  table();
  for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX; i++)
    if (T->e[i].used && T->e[i].owner == me()) drop(&T->e[i]);
  mine = 0;
}

void detsim__disk_fork_child(void) {
  if (T == NULL || mine == 0 || !detsim__in_world) return;
  uint32_t child = me();
  int32_t parent = detsim__ws->nodes[child].parent;
  if (parent < 0) return;
  if (!shared) {
    /* The process's own table, copied by the fork: its entries are now
     * the child's. */
    for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX; i++)
      if (T->e[i].used && T->e[i].owner == (uint32_t)parent) T->e[i].owner = child;
    return;
  }
  /* The node's table: the parent keeps its entries, the child holds the
   * same mappings (at the same addresses). */
  unsigned n = mine;
  mine = 0;
  for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX && mine < n; i++) {
    struct map_entry e = T->e[i];
    if (e.used && e.owner == (uint32_t)parent) add(e.addr, e.len, e.off, e.file, e.writable);
  }
}

bool detsim__disk_maps_held(void) { return mine > 0; }

/* ---- the calls ---- */

static int reader(int fd) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  return (int)REAL(open)(link, O_RDONLY | O_CLOEXEC);
}

void *detsim__disk_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off, uintptr_t pc) {
  int type = flags & MAP_TYPE;
  bool on = (type == MAP_SHARED || type == MAP_SHARED_VALIDATE) && !(flags & MAP_ANONYMOUS) && fd >= 0 &&
            detsim__disk_fd_tracked(fd);
  struct stat st;
  if (on && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) on = false;
  if (!on) {
    void *p = REAL(mmap)(addr, len, prot, flags, fd, off);
    /* A mapping put over a tracked one replaces it. */
    if (p != MAP_FAILED && (flags & MAP_FIXED)) cut((uint64_t)p, (uint64_t)p + page_up(len));
    return p;
  }
  disk_take_time(DISK_OP_META, 0, pc);
  bool writable = (prot & PROT_WRITE) != 0;
  char path[PATH_MAX] = "";
  disk_fd_path(fd, path, sizeof path);
  if (writable) check_bytes(page_up(len));
  uint32_t f = file_slot(st.st_dev, st.st_ino, path);
  void *p = REAL(mmap)(addr, len, prot, flags, fd, off);
  if (p == MAP_FAILED) return p;
  int e = errno;
  if (flags & MAP_FIXED) cut((uint64_t)p, (uint64_t)p + page_up(len));
  add((uint64_t)p, page_up(len), off, f, writable);
  if (writable && detsim__disk.journal) {
    int r = reader(fd);
    snapshot(f, off, off + (int64_t)page_up(len), r);
    if (r >= 0) REAL(close)(r);
  }
  errno = e;
  return p;
}

int detsim__disk_munmap(void *addr, size_t len) {
  int r = REAL(munmap)(addr, len);
  int e = errno;
  if (r == 0) cut((uint64_t)addr, (uint64_t)addr + page_up(len));
  errno = e;
  return r;
}

static struct map_entry *mine_at(uint64_t a) {
  for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX; i++) {
    struct map_entry *e = &T->e[i];
    if (e->used && e->owner == me() && e->addr <= a && a < e->addr + e->len) return e;
  }
  return NULL;
}

void *detsim__disk_mremap(void *old, size_t old_len, size_t new_len, int flags, void *new_addr) {
  uint64_t o = (uint64_t)old;
  struct map_entry *at = mine_at(o);
  struct map_entry was = at ? *at : (struct map_entry){ 0 };
  bool grows = at && was.writable && page_up(new_len) > page_up(old_len);
  if (grows) check_bytes(page_up(new_len) - page_up(old_len));
  void *p = REAL(mremap)(old, old_len, new_len, flags, new_addr);
  if (p == MAP_FAILED) return p;
  int e = errno;
  if (!(flags & MREMAP_DONTUNMAP)) cut(o, o + page_up(old_len));
  cut((uint64_t)p, (uint64_t)p + page_up(new_len)); /* MREMAP_FIXED replaces what was there */
  if (at) {
    int64_t foff = was.off + (int64_t)(o - was.addr);
    add((uint64_t)p, page_up(new_len), foff, was.file, was.writable);
    if (grows) snapshot(was.file, foff + (int64_t)page_up(old_len), foff + (int64_t)page_up(new_len), -1);
  }
  errno = e;
  return p;
}

int detsim__disk_mprotect(void *addr, size_t len, int prot) {
  int r = REAL(mprotect)(addr, len, prot);
  if (r != 0) return r;
  int e = errno;
  uint64_t a = (uint64_t)addr, b = a + page_up(len);
  bool w = (prot & PROT_WRITE) != 0;
  for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX; i++) {
    struct map_entry *m = &T->e[i];
    if (!m->used || m->owner != me() || (bool)m->writable == w) continue;
    uint64_t ea = m->addr, eb = m->addr + m->len;
    if (eb <= a || b <= ea) continue;
    /* The part in [a, b) changes; the rest stays as it was. */
    uint64_t ma = ea > a ? ea : a, mb = eb < b ? eb : b;
    if (w) check_bytes(mb - ma);
    if (ea < ma) add(ea, ma - ea, m->off, m->file, m->writable);
    if (mb < eb) add(mb, eb - mb, m->off + (int64_t)(mb - ea), m->file, m->writable);
    m->off += (int64_t)(ma - ea);
    m->addr = ma;
    m->len = mb - ma;
    m->writable = w;
    if (w) snapshot(m->file, m->off, m->off + (int64_t)m->len, -1);
  }
  errno = e;
  return 0;
}

/* msync: MS_SYNC makes the range's data (written or stored) and the file's
 * size durable, as fsync would for that range; MS_ASYNC starts nothing
 * Linux would wait for (a no-op since 2.6.19), and MS_INVALIDATE has no
 * work to do on a shared mapping of a page cache: both make nothing
 * durable.  The kernel checks the arguments (with MS_ASYNC in place of
 * MS_SYNC: no real write-back). */
int detsim__disk_msync(void *addr, size_t len, int flags, uintptr_t pc) {
  uint64_t a = (uint64_t)addr, b = a + page_up(len);
  bool tracked = false;
  for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX && !tracked; i++) {
    const struct map_entry *m = &T->e[i];
    tracked = m->used && m->owner == me() && m->addr < b && a < m->addr + m->len;
  }
  if (!tracked) return REAL(msync)(addr, len, flags);
  bool sync = (flags & MS_SYNC) && !(flags & MS_ASYNC);
  int r = REAL(msync)(addr, len, sync ? (flags & ~MS_SYNC) | MS_ASYNC : flags);
  int e = errno;
  /* ENOMEM (a hole in the range): Linux syncs the mapped parts first. */
  if (r != 0 && e != ENOMEM) return r;
  disk_take_time(sync ? DISK_OP_SYNC : DISK_OP_META, 0, pc);
  bool failed = false;
  if (sync) {
    for (unsigned i = 0; i < DETSIM_DISK_MAPS_MAX; i++) {
      struct map_entry m = T->e[i];
      if (!m.used || m.owner != me() || m.addr >= b || a >= m.addr + m.len) continue;
      uint64_t ma = m.addr > a ? m.addr : a, mb = m.addr + m.len < b ? m.addr + m.len : b;
      int64_t fa = m.off + (int64_t)(ma - m.addr), fb = m.off + (int64_t)(mb - m.addr);
      struct map_file *file = &T->f[m.file];
      if (disk_sync_fails(file->ino, pc)) {
        /* As a failed fsync: the file's unsynced data is lost for crash
         * purposes; what is mapped is unsynced from here on. */
        failed = true;
        if (detsim__disk.journal) disk_journal_mark(DISK_REC_FSYNC_FAIL, file->ino, file->path);
        if (detsim__disk.journal) rearm_range(m.file, 0, INT64_MAX, -1);
        continue;
      }
      if (!detsim__disk.journal) continue;
      disk_journal_msync(file->ino, file->path, fa, (uint64_t)(fb - fa));
      rearm_range(m.file, fa, fb, -1);
    }
  }
  if (r != 0) {
    errno = e;
    return -1;
  }
  if (failed) {
    errno = EIO;
    return -1;
  }
  return 0;
}
