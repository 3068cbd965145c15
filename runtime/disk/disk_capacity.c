/* The simulated disk's capacity (disk_capacity=, docs/disk.md "Capacity").
 *
 * What a disk holds is the sum of the sizes of the regular files under the
 * data directory (each file once, however many names it has): counted by a
 * scan whenever a call needs the room left, so it is exact whatever made
 * the files (another process of the node, a rollback after a power loss, a
 * write the runtime does not see) and never drifts.  A scan costs one stat
 * per file, so only a capacity set (not the default, unlimited) pays it,
 * and only on calls that grow a file.
 */
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"
#include "disk/disk.h"
#include "limits.h"

/* Inodes with several names seen by this scan (open addressing; a slot
 * of an older scan counts as empty). */
#define LINKED_SLOTS (2 * DETSIM_DISK_SCAN_FILES_MAX)
static struct {
  uint64_t ino;
  uint32_t scan;
} linked[LINKED_SLOTS];
static uint32_t scan;
static unsigned n_files;
static uint64_t used;

static bool first_name(uint64_t ino) {
  unsigned h = (unsigned)((ino * 0x9e3779b97f4a7c15ull) >> 40) % LINKED_SLOTS;
  for (unsigned n = 0; n < LINKED_SLOTS; n++, h = (h + 1) % LINKED_SLOTS) {
    if (linked[h].scan != scan) {
      linked[h].scan = scan;
      linked[h].ino = ino;
      return true;
    }
    if (linked[h].ino == ino) return false;
  }
  return false;
}

static int count_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)path;
  (void)ftw;
  if (type != FTW_F || !S_ISREG(st->st_mode)) return 0;
  if (++n_files > DETSIM_DISK_SCAN_FILES_MAX) return 1;
  if (st->st_nlink > 1 && !first_name(st->st_ino)) return 0;
  used += (uint64_t)st->st_size;
  return 0;
}

uint64_t disk_room(void) {
  uint64_t cap = detsim__opt.disk_capacity;
  if (cap == 0 || !detsim__disk_on()) return UINT64_MAX;
  used = 0;
  n_files = 0;
  if (++scan == 0) {
    memset(linked, 0, sizeof linked);
    scan = 1;
  }
  if (nftw(detsim__disk.data, count_one, 16, FTW_PHYS) == 1) {
    char msg[256];
    snprintf(msg, sizeof msg,
             "limit disk_scan_files=%u reached: more files under the data directory than the disk's capacity counts "
             "(DETSIM_DISK_SCAN_FILES_MAX in runtime/limits.h)",
             (unsigned)DETSIM_DISK_SCAN_FILES_MAX);
    disk_fail(msg);
  }
  return used < cap ? cap - used : 0;
}
