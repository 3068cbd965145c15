/* The runtime under MemorySanitizer (built as lib/msan/libdetsim_rt.so).
 *
 * MSan's rule is that all code is instrumented: a store it does not see
 * leaves the shadow of the stored bytes poisoned.  This copy of the runtime
 * is compiled with -fsanitize=memory, so its own stores are seen; what is
 * left is the memory libc and the kernel fill behind the runtime's back.
 *
 *   REAL(f)   resolves to MSan's own interceptor of f (`___interceptor_f`,
 *             exported by the executable, which holds MSan's static runtime)
 *             when MSan has one: it checks the inputs and unpoisons the
 *             outputs exactly as for a native call.  The interceptor calls
 *             the real f through MSan's pointer `__interception::real_f`,
 *             which MSan's start-up set with dlsym(RTLD_NEXT) from the
 *             executable, i.e. to this runtime's own f: every such pointer
 *             that points into this runtime is repointed here, at start-up,
 *             at the next definition (libc's), so the interceptor never
 *             comes back into the simulation.  MSan's internal calls through
 *             those pointers (its allocator's clock_gettime) then reach libc
 *             directly, as natively.
 *   early     MSan's own start-up (__msan_init) calls a few libc functions
 *             this runtime exports (sysconf) before it has mapped its
 *             shadow, where any instrumented code faults: those exports are
 *             gated by uninstrumented code until this runtime's constructor
 *             has run (DETSIM_MSAN_EARLY in sanitize.h).
 *
 * The pointers are in the executable's .symtab only (they are not
 * exported); it is read from /proc/self/exe with bare system calls, since
 * every libc entry that could read it is an interceptor (MSan's, ours).
 * Without -fsanitize=memory this file is empty.
 */
#include "sanitize/sanitize.h"

#ifdef DETSIM_MSAN_RUNTIME

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sanitizer/msan_interface.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "core/core.h"
#include "intercept/intercept.h"

volatile bool detsim__msan_ready;

/* The mangled name of MSan's pointer to the real function: namespace
 * __interception, identifier real_<f>. */
#define REAL_PREFIX "_ZN14__interception"

DETSIM_MSAN_NO_INSTRUMENT void *detsim__msan_early_next(const char *name) { return dlsym(RTLD_NEXT, name); }

static long raw_syscall(long number, long a, long b, long c, long d, long e, long f) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "0"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

/* The executable's load address: the first object dl_iterate_phdr lists. */
static int note_main(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  *(uintptr_t *)arg = info->dlpi_addr;
  return 1;
}

/* This runtime's text: a pointer into it is one MSan's start-up aimed at
 * our interceptor of the same name. */
static uintptr_t own_lo, own_hi;

static int note_own(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  (void)arg;
  uintptr_t here = (uintptr_t)&note_own;
  for (unsigned i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (here >= lo && here < hi) {
      own_lo = lo;
      own_hi = hi;
      return 1;
    }
  }
  return 0;
}

/* `_ZN14__interception<len>real_<f>E` -> f into `out`; false for any other name. */
static bool real_pointer_name(const char *sym, char *out, size_t out_size) {
  if (strncmp(sym, REAL_PREFIX, sizeof REAL_PREFIX - 1) != 0) return false;
  const char *p = sym + sizeof REAL_PREFIX - 1;
  size_t len = 0;
  while (*p >= '0' && *p <= '9') len = len * 10 + (size_t)(*p++ - '0');
  if (len <= 5 || strncmp(p, "real_", 5) != 0 || strlen(p) != len + 1 || p[len] != 'E') return false;
  if (len - 5 >= out_size) return false;
  memcpy(out, p + 5, len - 5);
  out[len - 5] = '\0';
  return true;
}

static unsigned repointed;

static void repoint_symtab(const unsigned char *image, size_t size, uintptr_t base) {
  const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)image;
  CHECK(size >= sizeof *eh && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0);
  CHECK_LE(eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr)), size);
  const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(image + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB) continue;
    CHECK_LT(sh[i].sh_link, eh->e_shnum);
    const ElfW(Shdr) *strtab = &sh[sh[i].sh_link];
    CHECK_LE(sh[i].sh_offset + sh[i].sh_size, size);
    CHECK_LE(strtab->sh_offset + strtab->sh_size, size);
    const ElfW(Sym) *syms = (const ElfW(Sym) *)(image + sh[i].sh_offset);
    size_t n = sh[i].sh_size / sizeof *syms;
    const char *names = (const char *)(image + strtab->sh_offset);
    for (size_t k = 0; k < n; k++) {
      if (ELF64_ST_TYPE(syms[k].st_info) != STT_OBJECT || syms[k].st_name >= strtab->sh_size) continue;
      char fn[128];
      if (!real_pointer_name(names + syms[k].st_name, fn, sizeof fn)) continue;
      uintptr_t *slot = (uintptr_t *)(base + syms[k].st_value);
      if (*slot < own_lo || *slot >= own_hi) continue;
      /* MSan aimed it at our f: aim it at the definition after ours. */
      void *next = dlsym(RTLD_NEXT, fn);
      if (!next) continue;
      *slot = (uintptr_t)next;
      repointed++;
    }
  }
}

static _Noreturn void setup_failed(const char *why, long err) {
  detsim__msg("error: MemorySanitizer build: %s (errno %ld)", why, err);
  detsim__finish(DETSIM_CLASS_inconclusive, 0, "reason=unsupported");
}

static bool set_up;

void detsim__msan_init(void) {
  if (set_up) return;
  set_up = true;
  /* A constructor of ours runs: __msan_init is over, the shadow mapped. */
  detsim__msan_ready = true;
  uintptr_t base = 0;
  dl_iterate_phdr(note_main, &base);
  dl_iterate_phdr(note_own, NULL);
  CHECK(own_hi > own_lo);
  long fd = raw_syscall(SYS_open, (long)"/proc/self/exe", O_RDONLY | O_CLOEXEC, 0, 0, 0, 0);
  if (fd < 0) setup_failed("cannot open /proc/self/exe to find MemorySanitizer's pointers to the real functions", -fd);
  struct stat st;
  long r = raw_syscall(SYS_fstat, fd, (long)&st, 0, 0, 0, 0);
  CHECK_EQ(r, 0);
  __msan_unpoison(&st, sizeof st);
  long map = raw_syscall(SYS_mmap, 0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
  if (map < 0 && map > -4096) setup_failed("cannot map /proc/self/exe", -map);
  /* The kernel filled the mapping: MSan saw no store. */
  __msan_unpoison((void *)map, (size_t)st.st_size);
  repoint_symtab((const unsigned char *)map, (size_t)st.st_size, base);
  raw_syscall(SYS_munmap, map, st.st_size, 0, 0, 0, 0);
  if (repointed == 0)
    setup_failed("no MemorySanitizer pointer to a real function aims into the runtime in the executable's symbol "
                 "table (is it stripped? a -fsanitize=memory simulation build must keep .symtab)", 0);
}

void *detsim__msan_through_interceptor(const char *name, void *real) {
  char sym[160] = "___interceptor_";
  size_t len = strlen(name);
  if (len + 16 > sizeof sym) return real;
  memcpy(sym + 15, name, len + 1);
  void *icpt = dlsym(RTLD_DEFAULT, sym);
  return icpt ? icpt : real;
}

#else

/* ISO C wants a translation unit to declare something. */
typedef int detsim__msan_unused;

#endif
