/* Which files are on the simulated disk: the data directory, path matching,
 * and the per-descriptor answer (docs/disk.md).
 *
 * A path is on the disk when, made absolute (against the working directory,
 * or the directory descriptor of an *at call) with the symlinks of its
 * directory resolved, it lies under the data directory; a symlink that
 * leaves the directory is outside.  A descriptor is on the disk when its
 * file (as /proc/self/fd names it) is; the answer is cached per descriptor
 * number until the runtime sees it closed or reused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk/disk.h"
#include "limits.h"
#include "core/core.h"
#include "intercept/intercept.h"
#include "sched/sched.h"
#include "world/world.h"

struct disk_config detsim__disk;

/* Per descriptor number: 0 not known yet, 1 not on the disk, 2 on it. */
static unsigned char fd_state[DETSIM_DISK_FDS_MAX];

bool detsim__disk_on(void) { return detsim__disk.data_len > 0; }

_Noreturn void disk_fail(const char *what) {
  detsim__msg("error: %s", what);
  char extra[160];
  snprintf(extra, sizeof extra, "reason=disk");
  detsim__finish(DETSIM_CLASS_inconclusive, 0, extra);
}

_Noreturn void detsim__disk_unsupported(const char *what) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s is not modeled by the simulated disk (docs/disk.md)", what);
  disk_fail(msg);
}

/* Lexical normalization of an absolute path: no ".", "..", "//". */
static bool normalize(char *joined, char *out, size_t len) {
  size_t o = 0;
  char *save = NULL;
  for (char *c = strtok_r(joined, "/", &save); c != NULL; c = strtok_r(NULL, "/", &save)) {
    if (strcmp(c, ".") == 0) continue;
    if (strcmp(c, "..") == 0) {
      while (o > 0 && out[o - 1] != '/') o--;
      if (o > 0) o--;
      continue;
    }
    size_t n = strlen(c);
    if (o + 1 + n + 1 > len) return false;
    out[o++] = '/';
    memcpy(out + o, c, n);
    o += n;
  }
  if (o == 0) out[o++] = '/';
  out[o] = '\0';
  return true;
}

bool detsim__path_lexical(int dirfd, const char *path, char *out, size_t len) {
  char joined[PATH_MAX * 2];
  if (path[0] == '/') {
    if (strlen(path) >= sizeof joined) return false;
    strcpy(joined, path);
  } else {
    char dir[PATH_MAX];
    if (dirfd == AT_FDCWD) {
      if (getcwd(dir, sizeof dir) == NULL) return false;
    } else if (!disk_fd_path(dirfd, dir, sizeof dir)) {
      return false;
    }
    if ((size_t)snprintf(joined, sizeof joined, "%s/%s", dir, path) >= sizeof joined) return false;
  }
  return normalize(joined, out, len);
}

bool disk_resolve(int dirfd, const char *path, char *out, size_t size) {
  if (path == NULL || path[0] == '\0') return false;
  char norm[PATH_MAX];
  if (!detsim__path_lexical(dirfd, path, norm, sizeof norm)) return false;
  /* The directory's symlinks resolved (the last component is the file
   * itself: a symlink there is a file of the directory it is in). */
  char *slash = strrchr(norm, '/');
  char parent[PATH_MAX], real_parent[PATH_MAX];
  size_t plen = (size_t)(slash - norm);
  if (plen == 0) plen = 1;
  memcpy(parent, norm, plen);
  parent[plen] = '\0';
  const char *base = slash + 1;
  if (realpath(parent, real_parent) == NULL) {
    /* A directory that does not exist (yet): the lexical path. */
    if (strlen(norm) >= size) return false;
    strcpy(out, norm);
    return true;
  }
  int n = base[0] ? snprintf(out, size, "%s%s%s", real_parent, strcmp(real_parent, "/") ? "/" : "", base)
                  : snprintf(out, size, "%s", real_parent);
  return n > 0 && (size_t)n < size;
}

bool disk_under(const char *abs) {
  size_t n = detsim__disk.data_len;
  return n > 0 && strncmp(abs, detsim__disk.data, n) == 0 && (abs[n] == '\0' || abs[n] == '/');
}

bool detsim__disk_path_tracked(int dirfd, const char *path) {
  if (!detsim__disk_on() || path == NULL) return false;
  char abs[PATH_MAX];
  return disk_resolve(dirfd, path, abs, sizeof abs) && disk_under(abs);
}

bool disk_fd_path(int fd, char *out, size_t size) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = REAL(readlink)(link, out, size - 1);
  if (n <= 0) return false;
  out[n] = '\0';
  return out[0] == '/';
}

bool detsim__disk_fd_tracked(int fd) {
  if (!detsim__disk_on() || fd < 0) return false;
  if (fd < DETSIM_DISK_FDS_MAX && fd_state[fd]) return fd_state[fd] == 2;
  char path[PATH_MAX];
  bool on = disk_fd_path(fd, path, sizeof path) && disk_under(path);
  if (fd < DETSIM_DISK_FDS_MAX) fd_state[fd] = on ? 2 : 1;
  return on;
}

/* A descriptor number the runtime saw opened or closed: ask again. */
void disk_fd_forget(int fd) {
  if (fd >= 0 && fd < DETSIM_DISK_FDS_MAX) fd_state[fd] = 0;
}

void disk_fd_forget_all(void) { memset(fd_state, 0, sizeof fd_state); }

void disk_fd_mark(int fd, bool on) {
  if (fd >= 0 && fd < DETSIM_DISK_FDS_MAX) fd_state[fd] = on ? 2 : 1;
}

void detsim__disk_outside_write(int fd) {
  static bool warned;
  if (warned || !detsim__world_hosts() || fd <= 2 || detsim__disk_fd_tracked(fd)) return;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  char path[PATH_MAX] = "?";
  disk_fd_path(fd, path, sizeof path);
  warned = true;
  detsim__msg("warning: a write to %s, a real file outside the node's data directory: it is not on the simulated disk "
              "(no crash loses it, no fault reaches it); later ones are not reported",
              path);
}

static _Noreturn void usage(const char *fmt, const char *a, const char *b) {
  char msg[PATH_MAX + 256];
  snprintf(msg, sizeof msg, fmt, a, b);
  detsim__msg("error: %s", msg);
  REAL(_exit)(DETSIM_EXIT_USAGE);
}

void detsim__disk_init(uint64_t seed) {
  detsim__disk.seed = seed;
  if (strcmp(detsim__opt.disk_model, "ext4") == 0) detsim__disk.model = DISK_MODEL_EXT4;
  else if (strcmp(detsim__opt.disk_model, "posix") == 0) detsim__disk.model = DISK_MODEL_POSIX;
  else usage("DETSIM_OPTIONS: bad value '%s' for key 'disk_model' (expected ext4 or posix)%s", detsim__opt.disk_model, "");
  const char *dir = detsim__opt.data_dir[0] ? detsim__opt.data_dir : getenv(DETSIM_DISK_DIR_ENV);
  if (dir == NULL || dir[0] == '\0') return;
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    usage("DETSIM_OPTIONS: data_dir=%s: %s (it must name an existing directory)", dir,
          errno ? strerror(errno) : "not a directory");
  if (realpath(dir, detsim__disk.data) == NULL) usage("data_dir=%s: %s", dir, strerror(errno));
  detsim__disk.data_len = strlen(detsim__disk.data);
  if (detsim__disk.data_len == 1) detsim__disk.data_len = 0, usage("data_dir=%s: %s", dir, "not the root directory");
  const char *journal = getenv(DETSIM_DISK_JOURNAL_ENV);
  /* Only a world's node can lose power (a crash as a dead host, level 3):
   * elsewhere nothing is journaled. */
  if (journal && journal[0] && detsim__world_hosts() && detsim__opt.level >= 3) {
    if (stat(journal, &st) != 0 || !S_ISDIR(st.st_mode)) usage("%s=%s: not a directory", DETSIM_DISK_JOURNAL_ENV, journal);
    snprintf(detsim__disk.journal_dir, sizeof detsim__disk.journal_dir, "%s", journal);
    detsim__disk.journal = true;
  }
  disk_map_init();
  if (!detsim__world_hosts()) return;
  struct detsim_world_node *me = &detsim__ws->nodes[detsim__host_index];
  if (!me->disk_lost_power) return;
  uint64_t writes = 0, names = 0;
  if (detsim__disk.journal) disk_rollback(&writes, &names);
  disk_map_forget_all(); /* none of the node's processes outlived the power */
  me->disk_lost_writes = writes;
  me->disk_lost_names = names;
  me->disk_lost_power = 0;
  me->disk_rolled_back = 1;
}

int detsim__disk_class(int cls) {
  if (cls == DETSIM_CLASS_pass || cls == DETSIM_CLASS_excused || !detsim__in_world) return cls;
  return detsim__ws->disk_beyond ? DETSIM_CLASS_excused : cls;
}
