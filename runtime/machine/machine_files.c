/* Interceptors: files that are sources of randomness or machine identity.
 *
 * open, openat and fopen (and their 64-bit, fortified and freopen forms) of
 * these paths give the simulated machine's contents, never the real ones:
 *
 *   /dev/urandom, /dev/random          endless bytes from the seed (machine_devrandom.c)
 *   /proc/sys/kernel/random/uuid       a new random UUID per open (same stream)
 *   /proc/sys/kernel/random/boot_id    one UUID per seed and boot (a world's node incarnation)
 *   /proc/sys/kernel/random/entropy_avail, poolsize   256, as Linux 5.18 and later
 *   /etc/machine-id, /var/lib/dbus/machine-id          32 hex digits per seed and node
 *   /proc/cpuinfo                      one block per simulated CPU
 *   /sys/devices/system/cpu/online, possible, present  0-(cpus-1)
 *   /proc/meminfo                      the simulated machine's memory
 *   /proc/self/stat, /proc/<pid>/stat, /proc/thread-self/stat, .../task/<tid>/stat
 *                                      the simulated pid, thread count and CPU time
 *
 * A path matches after normalizing it as the kernel would resolve it
 * (relative to the working directory or dirfd, "." and ".." and repeated
 * slashes, /proc/self, /proc/thread-self and the process's own pid);
 * symbolic links other than those are not followed.  A file with fixed
 * contents is a real memfd, reopened read-only, so read, fread, mmap and
 * fstat work natively, even through libc's internal calls; fopen gives a
 * real stream over it.  Opening one is a yield point (machine_file event).
 * Before the simulation runs, and for the runtime's own calls, every path
 * is the real file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sanitize/sanitize.h"
#include "core/core.h"
#include "net/net.h"
#include "time/time.h"
#include "limits.h"
#include "disk/disk.h"
#include "machine/machine.h"
#include "intercept/intercept.h"
#include "libc/libc.h"
#include "world/world.h"

/* glibc's fortified entry points have no public prototypes. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

enum special {
  SP_NONE = 0,
  SP_DEVRANDOM,
  SP_UUID,
  SP_BOOT_ID,
  SP_ENTROPY,
  SP_MACHINE_ID,
  SP_CPUINFO,
  SP_CPU_RANGE,
  SP_MEMINFO,
  SP_PROC_STAT,
  SP_THREAD_STAT,
  SP_PTMX,        /* a new pseudo-terminal's master (net/net_pty.c) */
  SP_PTS,         /* /dev/pts/N of a simulated pseudo-terminal */
};

static const struct {
  const char *path;
  enum special kind;
} fixed_paths[] = {
  { "/dev/urandom", SP_DEVRANDOM },
  { "/dev/random", SP_DEVRANDOM },
  { "/proc/sys/kernel/random/uuid", SP_UUID },
  { "/proc/sys/kernel/random/boot_id", SP_BOOT_ID },
  { "/proc/sys/kernel/random/entropy_avail", SP_ENTROPY },
  { "/proc/sys/kernel/random/poolsize", SP_ENTROPY },
  { "/etc/machine-id", SP_MACHINE_ID },
  { "/var/lib/dbus/machine-id", SP_MACHINE_ID },
  { "/proc/cpuinfo", SP_CPUINFO },
  { "/sys/devices/system/cpu/online", SP_CPU_RANGE },
  { "/sys/devices/system/cpu/possible", SP_CPU_RANGE },
  { "/sys/devices/system/cpu/present", SP_CPU_RANGE },
  { "/proc/meminfo", SP_MEMINFO },
  { "/dev/ptmx", SP_PTMX },
  { "/dev/pts/ptmx", SP_PTMX },
};

/* The last component of every special path: any other path is the real
 * file at the cost of one scan of its name. */
static bool maybe_special(const char *path) {
  static const char *const names[] = { "urandom", "random", "uuid", "boot_id", "entropy_avail", "poolsize",
                                       "machine-id", "cpuinfo", "online", "possible", "present", "meminfo",
                                       "stat", "ptmx" };
  if (strncmp(path, "/dev/pts/", 9) == 0) return true;
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(base, names[i]) == 0) return true;
  return false;
}

/* A decimal number and what follows it. */
static bool number_at(const char *p, long *v, const char **rest) {
  if (*p < '0' || *p > '9') return false;
  char *end;
  *v = strtol(p, &end, 10);
  *rest = end;
  return true;
}

/* The pty SP_PTS named (classify sets it for open_special, right after). */
static unsigned pts_index;

static enum special classify(int dirfd, const char *path) {
  char abs[PATH_MAX];
  if (!detsim__path_lexical(dirfd, path, abs, sizeof abs)) return SP_NONE;
  if (net_pty_slave_path(abs, &pts_index)) return SP_PTS;
  for (size_t i = 0; i < sizeof fixed_paths / sizeof fixed_paths[0]; i++)
    if (strcmp(abs, fixed_paths[i].path) == 0) return fixed_paths[i].kind;
  /* /proc/self, /proc/<own pid>, /proc/thread-self */
  const char *rest;
  long pid;
  if (strcmp(abs, "/proc/thread-self/stat") == 0) return SP_THREAD_STAT;
  if (strncmp(abs, "/proc/self/", 11) == 0) rest = abs + 10;
  else if (strncmp(abs, "/proc/", 6) == 0 && number_at(abs + 6, &pid, &rest) &&
           (pid == detsim__machine_pid() || pid == REAL(getpid)())) {
  } else {
    return SP_NONE;
  }
  if (strcmp(rest, "/stat") == 0) return SP_PROC_STAT;
  long tid;
  if (strncmp(rest, "/task/", 6) == 0 && number_at(rest + 6, &tid, &rest) && strcmp(rest, "/stat") == 0)
    return SP_THREAD_STAT; /* (the calling thread's; docs/functions.md) */
  return SP_NONE;
}

/* ---- contents ---- */

static void uuid_text(const uint8_t b[16], char out[37]) {
  uint8_t v[16];
  memcpy(v, b, 16);
  v[6] = (uint8_t)((v[6] & 0x0f) | 0x40); /* version 4 */
  v[8] = (uint8_t)((v[8] & 0x3f) | 0x80); /* RFC 4122 variant */
  snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", v[0], v[1], v[2], v[3],
           v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]);
}

/* 16 bytes that are a pure function of the seed and `label` (per node). */
static void identity_bytes(const char *label, bool per_incarnation, uint8_t out[16]) {
  char full[96];
  /* The host's: its processes share its identity (a run's own world is
   * one host). */
  if (per_incarnation) detsim__world_host_label(full, sizeof full, label);
  else if (detsim__world_solo || !detsim__in_world) snprintf(full, sizeof full, "%s", label);
  else snprintf(full, sizeof full, "%s/node/%u", label, detsim__host_index);
  struct detsim_rng r;
  detsim__rng_init(&r, detsim__seed_child(detsim__seed(), full));
  uint64_t a = detsim__rng_next(&r), b = detsim__rng_next(&r);
  memcpy(out, &a, 8);
  memcpy(out + 8, &b, 8);
}

/* A cpuinfo block as an x86-64 guest shows it, the same on every machine. */
static size_t cpuinfo(char *buf, size_t len) {
  size_t o = 0;
  unsigned n = detsim__machine_cpus();
  for (unsigned c = 0; c < n && o < len; c++)
    o += (size_t)snprintf(buf + o, len - o,
                          "processor\t: %u\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
                          "model name\t: detsim virtual CPU\nstepping\t: 7\ncpu MHz\t\t: 2000.000\n"
                          "cache size\t: 32768 KB\nphysical id\t: 0\nsiblings\t: %u\ncore id\t\t: %u\n"
                          "cpu cores\t: %u\napicid\t\t: %u\ninitial apicid\t: %u\nfpu\t\t: yes\n"
                          "fpu_exception\t: yes\ncpuid level\t: 22\nwp\t\t: yes\n"
                          "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 "
                          "clflush mmx fxsr sse sse2 ht syscall nx lm constant_tsc rep_good nopl pni pclmulqdq "
                          "ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm "
                          "abm bmi1 avx2 bmi2 erms\n"
                          "bogomips\t: 4000.00\nclflush size\t: 64\ncache_alignment\t: 64\n"
                          "address sizes\t: 46 bits physical, 48 bits virtual\npower management:\n\n",
                          c, n, c, n, c, c);
  return o < len ? o : len;
}

static size_t meminfo(char *buf, size_t len) {
  unsigned long long kib = DETSIM_MACHINE_MEMORY_BYTES >> 10;
  int n = snprintf(buf, len,
                   "MemTotal:       %llu kB\nMemFree:        %llu kB\nMemAvailable:   %llu kB\n"
                   "Buffers:               0 kB\nCached:                0 kB\nSwapCached:            0 kB\n"
                   "SwapTotal:             0 kB\nSwapFree:              0 kB\n",
                   kib, kib / 4 * 3, kib / 4 * 3);
  return (size_t)n < len ? (size_t)n : len;
}

/* /proc/<pid>/stat's 52 fields: the simulated pid, the program's name, its
 * thread count and CPU time (utime, in clock ticks); start time 0 ticks
 * after boot; every other count 0.  A thread's stat shows its own CPU time. */
static size_t proc_stat(char *buf, size_t len, bool thread) {
  /* The name the program was run as (the kernel's comm: 15 bytes), not the
   * name of the re-execution without address randomization. */
  char comm[16];
  snprintf(comm, sizeof comm, "%s", program_invocation_short_name);
  long hz = REAL(sysconf)(_SC_CLK_TCK);
  uint64_t ns_per_tick = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
  detsim_thread *self = detsim__self();
  uint64_t cpu = thread && self != NULL ? self->cpu_ns : detsim__process_cpu_ns;
  long pid = (long)detsim__machine_pid();
  int n = snprintf(buf, len,
                   "%ld (%s) R 1 %ld %ld 0 -1 4194304 0 0 0 0 %llu 0 0 0 20 0 %u 0 0 0 0 "
                   "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
                   pid, comm, pid, pid, (unsigned long long)(cpu / ns_per_tick), detsim__machine_threads());
  return (size_t)n < len ? (size_t)n : len;
}

/* The contents of a fixed special file, and its length. */
static size_t contents(enum special kind, char *buf, size_t len) {
  uint8_t b[16];
  char u[37];
  switch (kind) {
  case SP_UUID:
    detsim__devrandom_fill(b, sizeof b);
    uuid_text(b, u);
    return (size_t)snprintf(buf, len, "%s\n", u);
  case SP_BOOT_ID:
    identity_bytes("machine/boot_id", true, b);
    uuid_text(b, u);
    return (size_t)snprintf(buf, len, "%s\n", u);
  case SP_MACHINE_ID:
    identity_bytes("machine/machine-id", false, b);
    for (int i = 0; i < 16; i++) snprintf(buf + 2 * i, len - 2 * (size_t)i, "%02x", b[i]);
    return (size_t)snprintf(buf + 32, len - 32, "\n") + 32;
  case SP_ENTROPY: return (size_t)snprintf(buf, len, "256\n");
  case SP_CPUINFO: return cpuinfo(buf, len);
  case SP_CPU_RANGE: {
    unsigned n = detsim__machine_cpus();
    return n == 1 ? (size_t)snprintf(buf, len, "0\n") : (size_t)snprintf(buf, len, "0-%u\n", n - 1);
  }
  case SP_MEMINFO: return meminfo(buf, len);
  case SP_PROC_STAT: return proc_stat(buf, len, false);
  case SP_THREAD_STAT: return proc_stat(buf, len, true);
  case SP_NONE:
  case SP_DEVRANDOM:
  case SP_PTMX:
  case SP_PTS: break;
  }
  CHECK(false); /* no fixed contents for this kind */
  return 0;
}

/* A read-only descriptor over `data` (a memfd reopened read-only, so a
 * write fails with EBADF as on a read-only file). */
static int memfd_with(const char *name, const char *data, size_t n, int flags) {
  int mfd = REAL(memfd_create)(name, MFD_CLOEXEC);
  if (mfd < 0) return -1;
  if (pwrite(mfd, data, n, 0) != (ssize_t)n) {
    int e = errno;
    REAL(close)(mfd);
    errno = e != 0 ? e : EIO;
    return -1;
  }
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", mfd);
  int fd = REAL(open)(self, O_RDONLY | (flags & (O_CLOEXEC | O_NONBLOCK)));
  int e = errno;
  REAL(close)(mfd);
  errno = e;
  return fd;
}

static int fail(int e) {
  errno = e;
  return -1;
}

/* Opens special file `kind` as open(2) would with `flags`. */
static int open_special(enum special kind, const char *path, int flags, uintptr_t pc) {
  detsim__yield_aux(DETSIM_EV_machine_file, NULL, pc, (uint32_t)kind);
  int acc = flags & O_ACCMODE;
  if (flags & O_DIRECTORY) return fail(ENOTDIR);
  if ((flags & O_CREAT) && (flags & O_EXCL)) return fail(EEXIST);
  if (kind == SP_DEVRANDOM) return detsim__devrandom_open(acc, (flags & O_NONBLOCK) != 0, (flags & O_CLOEXEC) != 0);
  if (kind == SP_PTMX) return net_pty_open_master(flags & (O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (kind == SP_PTS) return net_pty_open_slave(pts_index, flags & (O_NONBLOCK | O_CLOEXEC));
  if (acc != O_RDONLY || (flags & O_TRUNC)) return fail(EACCES); /* read-only files (0444) */
  static char buf[DETSIM_MACHINE_FILE_BYTES_MAX];
  size_t n = contents(kind, buf, sizeof buf);
  CHECK_LT(n, sizeof buf); /* DETSIM_MACHINE_FILE_BYTES_MAX holds every file */
  char name[96];
  snprintf(name, sizeof name, "detsim:%s", path);
  return memfd_with(name, buf, n, flags);
}

/* The special file `path` names for this call, or SP_NONE for the real
 * file.  Only simulated threads see them: the runtime's own opens, opens
 * before the run and threads outside the simulation reach the real ones. */
static enum special special_for(int dirfd, const char *path) {
  /* Uninstrumented callers (libunwind opening an ELF image) build paths
   * MSan did not see written; MSan has no open interceptor to check them. */
  if (path != NULL) detsim__msan_unpoison_string(path);
  if (path == NULL || !maybe_special(path)) return SP_NONE;
  if (!detsim__running() || detsim__internal() || detsim__self() == NULL) return SP_NONE;
  return classify(dirfd, path);
}

static mode_t mode_arg(int flags, va_list ap) {
  mode_t mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, unsigned) : 0;
  detsim__msan_unpoison(&mode, sizeof mode); /* an uninstrumented caller passes no shadow */
  return mode;
}

#define PC() ((uintptr_t)__builtin_return_address(0))

/* A file of the simulated disk opened by a simulated thread (runtime/disk/);
 * any other descriptor the runtime sees opened is asked about afresh. */
static bool disk_open(int dirfd, const char *path, int flags, mode_t mode) {
  (void)flags;
  (void)mode;
  return detsim__disk_on() && detsim__self() != NULL && detsim__disk_path_tracked(dirfd, path);
}

DETSIM_EXPORT int __detsim_open(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  enum special k = special_for(AT_FDCWD, path);
  if (k != SP_NONE) return open_special(k, path, flags, PC());
  return disk_open(AT_FDCWD, path, flags, mode) ? detsim__disk_open(AT_FDCWD, path, flags, mode) : REAL(open)(path, flags, mode);
}
DETSIM_INTERCEPT_ALIAS(open)

DETSIM_EXPORT int __detsim_open64(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  enum special k = special_for(AT_FDCWD, path);
  if (k != SP_NONE) return open_special(k, path, flags, PC());
  return disk_open(AT_FDCWD, path, flags, mode) ? detsim__disk_open(AT_FDCWD, path, flags, mode) : REAL(open64)(path, flags, mode);
}
DETSIM_INTERCEPT_ALIAS(open64)

DETSIM_EXPORT int __detsim_openat(int dirfd, const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  enum special k = special_for(dirfd, path);
  if (k != SP_NONE) return open_special(k, path, flags, PC());
  return disk_open(dirfd, path, flags, mode) ? detsim__disk_open(dirfd, path, flags, mode) : REAL(openat)(dirfd, path, flags, mode);
}
DETSIM_INTERCEPT_ALIAS(openat)

DETSIM_EXPORT int __detsim_openat64(int dirfd, const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = mode_arg(flags, ap);
  va_end(ap);
  enum special k = special_for(dirfd, path);
  if (k != SP_NONE) return open_special(k, path, flags, PC());
  return disk_open(dirfd, path, flags, mode) ? detsim__disk_open(dirfd, path, flags, mode) : REAL(openat64)(dirfd, path, flags, mode);
}
DETSIM_INTERCEPT_ALIAS(openat64)

DETSIM_EXPORT int __detsim___open_2(const char *path, int flags) {
  enum special k = special_for(AT_FDCWD, path);
  if (k != SP_NONE) return open_special(k, path, flags, PC());
  return disk_open(AT_FDCWD, path, flags, 0) ? detsim__disk_open(AT_FDCWD, path, flags, 0) : REAL(__open_2)(path, flags);
}
DETSIM_INTERCEPT_ALIAS(__open_2)

DETSIM_EXPORT int __detsim___open64_2(const char *path, int flags) {
  enum special k = special_for(AT_FDCWD, path);
  if (k != SP_NONE) return open_special(k, path, flags, PC());
  return disk_open(AT_FDCWD, path, flags, 0) ? detsim__disk_open(AT_FDCWD, path, flags, 0) : REAL(__open64_2)(path, flags);
}
DETSIM_INTERCEPT_ALIAS(__open64_2)

DETSIM_EXPORT int __detsim___openat_2(int dirfd, const char *path, int flags) {
  enum special k = special_for(dirfd, path);
  if (k != SP_NONE) return open_special(k, path, flags, PC());
  return disk_open(dirfd, path, flags, 0) ? detsim__disk_open(dirfd, path, flags, 0) : REAL(__openat_2)(dirfd, path, flags);
}
DETSIM_INTERCEPT_ALIAS(__openat_2)

DETSIM_EXPORT int __detsim___openat64_2(int dirfd, const char *path, int flags) {
  enum special k = special_for(dirfd, path);
  if (k != SP_NONE) return open_special(k, path, flags, PC());
  return disk_open(dirfd, path, flags, 0) ? detsim__disk_open(dirfd, path, flags, 0) : REAL(__openat64_2)(dirfd, path, flags);
}
DETSIM_INTERCEPT_ALIAS(__openat64_2)

/* ---- stdio ---- */

/* fopen's mode as open flags (-1 for a bad mode: EINVAL). */
static int flags_of_mode(const char *mode) {
  int flags;
  switch (mode[0]) {
  case 'r': flags = O_RDONLY; break;
  case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC; break;
  case 'a': flags = O_WRONLY | O_CREAT | O_APPEND; break;
  default: return -1;
  }
  for (const char *p = mode + 1; *p && *p != ','; p++) {
    if (*p == '+') flags = (flags & ~O_ACCMODE) | O_RDWR;
    else if (*p == 'e') flags |= O_CLOEXEC;
    else if (*p == 'x') flags |= O_EXCL;
  }
  return flags;
}

static FILE *fopen_special(enum special k, const char *path, const char *mode, uintptr_t pc) {
  if (k == SP_PTMX || k == SP_PTS) {
    net_unsupported("fopen of a pseudo-terminal", "open the pty with open() or posix_openpt and use fdopen");
    errno = ENOTSUP;
    return NULL;
  }
  int flags = flags_of_mode(mode);
  if (flags < 0) {
    errno = EINVAL;
    return NULL;
  }
  if (k == SP_DEVRANDOM) {
    detsim__yield_aux(DETSIM_EV_machine_file, NULL, pc, (uint32_t)k);
    if ((flags & O_CREAT) && (flags & O_EXCL)) {
      errno = EEXIST;
      return NULL;
    }
    return detsim__devrandom_fopen(mode);
  }
  int fd = open_special(k, path, flags, pc);
  if (fd < 0) return NULL;
  FILE *f = REAL(fdopen)(fd, mode);
  if (f == NULL) {
    int e = errno;
    REAL(close)(fd);
    errno = e;
  }
  return f;
}

/* A file of the simulated disk as a stream whose reads and writes are the
 * disk's (stdio_sim.c's streams; fileno gives the descriptor): glibc's own
 * stream would write through calls no interceptor sees. */
static FILE *fopen_disk(const char *path, const char *mode) {
  int flags = flags_of_mode(mode);
  if (flags < 0) {
    errno = EINVAL;
    return NULL;
  }
  int fd = detsim__disk_open(AT_FDCWD, path, flags, 0666);
  if (fd < 0) return NULL;
  FILE *f = detsim__stdio_fdopen_real(fd, mode);
  if (f == NULL) {
    int e = errno;
    detsim__disk_close(fd);
    errno = e;
  }
  return f;
}

DETSIM_EXPORT FILE *__detsim_fopen(const char *path, const char *mode) {
  enum special k = special_for(AT_FDCWD, path);
  if (k != SP_NONE) return fopen_special(k, path, mode, PC());
  if (disk_open(AT_FDCWD, path, 0, 0) && mode != NULL) return fopen_disk(path, mode);
  return REAL(fopen)(path, mode);
}
DETSIM_INTERCEPT_ALIAS(fopen)

DETSIM_EXPORT FILE *__detsim_fopen64(const char *path, const char *mode) {
  enum special k = special_for(AT_FDCWD, path);
  if (k != SP_NONE) return fopen_special(k, path, mode, PC());
  if (disk_open(AT_FDCWD, path, 0, 0) && mode != NULL) return fopen_disk(path, mode);
  return REAL(fopen64)(path, mode);
}
DETSIM_INTERCEPT_ALIAS(fopen64)

/* freopen of a file with fixed contents reopens the stream on its memfd;
 * the endless devices can't become an existing stream: a loud error. */
static FILE *freopen_special(enum special k, const char *path, const char *mode, FILE *stream, uintptr_t pc) {
  int flags = flags_of_mode(mode);
  if (k == SP_DEVRANDOM || k == SP_PTMX || k == SP_PTS) {
    detsim__msg("error: freopen of %s is not simulated (fopen it instead); the call fails with ENOTSUP", path);
    fclose(stream);
    errno = ENOTSUP;
    return NULL;
  }
  int fd = flags < 0 ? fail(EINVAL) : open_special(k, path, flags, pc);
  if (fd < 0) {
    int e = errno;
    fclose(stream);
    errno = e;
    return NULL;
  }
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  FILE *f = REAL(freopen)(self, mode, stream);
  int e = errno;
  REAL(close)(fd);
  errno = e;
  return f;
}

/* freopen of a special file (stdio_sim.c's freopen asks first): handled,
 * or false for any other path. */
bool detsim__machine_freopen(const char *path, const char *mode, FILE *stream, FILE **out) {
  enum special k = special_for(AT_FDCWD, path);
  if (k == SP_NONE) return false;
  *out = freopen_special(k, path, mode, stream, PC());
  return true;
}
