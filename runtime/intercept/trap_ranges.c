/* The text the net lets make real system calls (intercept/intercept.h).
 *
 * Read once, at install time, from dl_iterate_phdr: the executable
 * (PF_X) PT_LOAD segments of libc, the dynamic loader, the vDSO, the
 * runtime and the libraries the runtime links (libunwind and what it
 * needs, libgcc_s, libm, libpthread, libdl).  Everything else is the
 * program's: the executable, its own libraries, and every library loaded
 * later (dlopen), whose raw system call instructions are trapped and
 * simulated; their calls through libc functions come from libc's text and
 * pass as before.
 */
#include <link.h>
#include <string.h>

#include "intercept/intercept.h"

/* Base names (up to the first '.', or "-" for the loader) of the objects
 * whose text may make real system calls. */
static const char *const allowed_names[] = {
  "libc", "ld-linux-x86-64", "linux-vdso", "libdetsim_rt", "libunwind", "libunwind-x86_64",
  "liblzma", "libgcc_s", "libm", "libpthread", "libdl", "librt",
};

static uintptr_t vdso_lo, vdso_hi, libc_lo, libc_hi;

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static bool allowed(const char *path) {
  const char *name = base_name(path);
  size_t len = strcspn(name, ".");
  for (size_t i = 0; i < sizeof allowed_names / sizeof allowed_names[0]; i++)
    if (strlen(allowed_names[i]) == len && strncmp(name, allowed_names[i], len) == 0) return true;
  return false;
}

static bool is_libc(const char *path) {
  const char *name = base_name(path);
  return strncmp(name, "libc.so", 7) == 0 || strncmp(name, "libc-", 5) == 0;
}

/* The runtime's own object is found by an address in it, whatever its file
 * is called. */
static bool holds_runtime(const struct dl_phdr_info *info) {
  uintptr_t self = (uintptr_t)&detsim__trap_ranges;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (self >= lo && self < lo + ph->p_memsz) return true;
  }
  return false;
}

struct collect {
  struct detsim_trap_range *out;
  int max, n;
  bool overflow;
};

static int collect_one(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct collect *c = arg;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  bool vdso = strncmp(base_name(name), "linux-vdso", 10) == 0;
  if (name[0] == '\0' && !holds_runtime(info)) return 0; /* the executable */
  if (!allowed(name) && !holds_runtime(info)) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (vdso) {
      vdso_lo = lo;
      vdso_hi = hi;
    }
    if (is_libc(name)) {
      /* Its executable segments as one span (one segment in glibc). */
      if (libc_hi == 0 || lo < libc_lo) libc_lo = lo;
      if (hi > libc_hi) libc_hi = hi;
    }
    if (c->n == c->max) {
      c->overflow = true;
      return 1;
    }
    c->out[c->n++] = (struct detsim_trap_range){ lo, hi };
  }
  return 0;
}

int detsim__trap_ranges(struct detsim_trap_range *out, int max) {
  struct collect c = { out, max, 0, false };
  dl_iterate_phdr(collect_one, &c);
  return c.overflow ? -1 : c.n;
}

bool detsim__trap_in_vdso(uintptr_t pc) { return pc >= vdso_lo && pc < vdso_hi; }

bool detsim__trap_libc_text(uintptr_t *lo, uintptr_t *hi) {
  *lo = libc_lo;
  *hi = libc_hi;
  return libc_hi > libc_lo;
}
