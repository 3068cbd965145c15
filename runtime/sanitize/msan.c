/* The runtime under MemorySanitizer (built as lib/msan/libdetsim_rt.so).
 *
 * MSan's rule is that all code is instrumented: a store it does not see
 * leaves the shadow of the stored bytes poisoned.  This copy of the runtime
 * is compiled with -fsanitize=memory, so its own stores are seen; what is
 * left is the memory libc and the kernel fill behind the runtime's back.
 *
 *   REAL(f)   goes through MSan's own interceptor of f (`___interceptor_f`,
 *             exported by the executable, which holds MSan's static runtime)
 *             when MSan has one: it checks the inputs and unpoisons the
 *             outputs exactly as for a native call.
 *   real_f    The interceptor calls the real f through MSan's pointer
 *             `__interception::real_f`, which MSan's start-up set with
 *             dlsym(RTLD_NEXT) from the executable, i.e. to this runtime's
 *             own f.  That is right for an uninstrumented library's call
 *             (its read of a simulated socket must reach the simulation, as
 *             under the other sanitizers) and wrong for the runtime's own
 *             REAL(f), which would come back into the simulation.  So every
 *             such pointer is aimed, at start-up, at a trampoline of ours
 *             (to_real[i]) that picks: libc's f when the calling thread's
 *             `via` word says the call came from REAL(f), our f otherwise.
 *             REAL(f) is a second trampoline (via_icpt[i]) that sets `via`
 *             to i and jumps to MSan's interceptor, so REAL(f) stays a plain
 *             function pointer (some callers keep it).  The trampolines are
 *             assembly: they run between MSan's code and ours, take any
 *             arguments, and use only r10 and r11 (never arguments in the
 *             x86_64 calling convention; %al, the vector count of a variadic
 *             call, is left alone).
 *   early     MSan's own start-up (__msan_init) calls a few libc functions
 *             this runtime exports (sysconf, sigaction) before it has mapped
 *             its shadow, where any instrumented code faults: those exports
 *             are gated by uninstrumented code until this runtime's
 *             constructor has run (DETSIM_MSAN_EARLY in sanitize.h).
 *
 * The pointers are in the executable's .symtab only (they are not
 * exported).  It is read from /proc/self/exe with bare system calls, not
 * with static_runtime.c's reader: that one opens and maps through REAL,
 * which must not reach MSan's interceptors before the pointers are aimed.
 * Without -fsanitize=memory this file is empty.
 */
#include "sanitize/sanitize.h"

#ifdef DETSIM_MSAN_RUNTIME

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "limits.h"
#include "core/core.h"
#include "intercept/intercept.h"

volatile bool detsim__msan_ready;

/* 1 + the index of the function whose REAL call is under way on this
 * thread (set by via_icpt, taken by to_real), 0 for none. */
__thread unsigned detsim__msan_via __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Per repointed function i: our f (MSan's pointer before), libc's f, and
 * MSan's interceptor (NULL if not exported under ___interceptor_f). */
void *detsim__msan_ours[DETSIM_MSAN_REAL_POINTERS_MAX] __attribute__((visibility("hidden")));
void *detsim__msan_libc[DETSIM_MSAN_REAL_POINTERS_MAX] __attribute__((visibility("hidden")));
void *detsim__msan_icpt[DETSIM_MSAN_REAL_POINTERS_MAX] __attribute__((visibility("hidden")));
static char names[DETSIM_MSAN_REAL_POINTERS_MAX][64];
static unsigned repointed;
/* The functions whose MSan pointer was aimed elsewhere (libc's) already:
 * their interceptors never come to us, so REAL may enter them directly.
 * Names one after another, each ended by '\0'. */
static char others[DETSIM_MSAN_OTHER_NAMES_BYTES_MAX];
static size_t others_used;

/* Two tables of DETSIM_MSAN_REAL_POINTERS_MAX trampolines, 16 bytes each:
 * entry i loads i + 1 into r11 and jumps to the table's common part. */
#define TRAMPOLINE_BYTES 16
#define ENTRY(common, h, l) ".balign 16\n movl $(0x" #h #l " + 1), %r11d\n jmp " common "\n"
#define ROW(common, h) \
  ENTRY(common, h, 0) ENTRY(common, h, 1) ENTRY(common, h, 2) ENTRY(common, h, 3) ENTRY(common, h, 4) \
  ENTRY(common, h, 5) ENTRY(common, h, 6) ENTRY(common, h, 7) ENTRY(common, h, 8) ENTRY(common, h, 9) \
  ENTRY(common, h, a) ENTRY(common, h, b) ENTRY(common, h, c) ENTRY(common, h, d) ENTRY(common, h, e) \
  ENTRY(common, h, f)
#define TABLE(common) \
  ROW(common, 0) ROW(common, 1) ROW(common, 2) ROW(common, 3) ROW(common, 4) ROW(common, 5) ROW(common, 6) \
  ROW(common, 7) ROW(common, 8) ROW(common, 9) ROW(common, a) ROW(common, b) ROW(common, c) ROW(common, d) \
  ROW(common, e) ROW(common, f)
_Static_assert(DETSIM_MSAN_REAL_POINTERS_MAX == 256, "the tables are 16 rows of 16");

extern const char detsim__msan_to_real[] __attribute__((visibility("hidden")));
extern const char detsim__msan_via_icpt[] __attribute__((visibility("hidden")));

__asm__(".text\n"
        ".balign 16\n"
        ".hidden detsim__msan_to_real\n"
        "detsim__msan_to_real:\n" TABLE("detsim__msan_to_real_common")
        /* MSan's interceptor calls the real f: libc's if REAL(f) called
         * the interceptor (the mark is taken), ours otherwise. */
        "detsim__msan_to_real_common:\n"
        " movq detsim__msan_via@gottpoff(%rip), %r10\n"
        " cmpl %fs:(%r10), %r11d\n"
        " jne 1f\n"
        " movl $0, %fs:(%r10)\n"
        " leaq detsim__msan_libc(%rip), %r10\n"
        " jmp *-8(%r10,%r11,8)\n"
        "1:\n"
        " leaq detsim__msan_ours(%rip), %r10\n"
        " jmp *-8(%r10,%r11,8)\n"
        ".balign 16\n"
        ".hidden detsim__msan_via_icpt\n"
        "detsim__msan_via_icpt:\n" TABLE("detsim__msan_via_icpt_common")
        /* REAL(f): marks the call and enters MSan's interceptor. */
        "detsim__msan_via_icpt_common:\n"
        " movq detsim__msan_via@gottpoff(%rip), %r10\n"
        " movl %r11d, %fs:(%r10)\n"
        " leaq detsim__msan_icpt(%rip), %r10\n"
        " jmp *-8(%r10,%r11,8)\n");

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

static _Noreturn void setup_failed(const char *why, long err) {
  if (err != 0) detsim__msg("error: MemorySanitizer build: %s (errno %ld)", why, err);
  else detsim__msg("error: MemorySanitizer build: %s", why);
  detsim__finish(DETSIM_CLASS_inconclusive, 0, "reason=unsupported");
}

/* MSan aimed `slot` at our `fn`: aim it at to_real[i] instead. */
static void repoint(uintptr_t *slot, const char *fn) {
  void *libc = detsim__next_definition(fn);
  if (libc == NULL) return; /* nothing after ours to reach: leave it */
  if (repointed == DETSIM_MSAN_REAL_POINTERS_MAX) {
    detsim__msg("error: more than DETSIM_MSAN_REAL_POINTERS_MAX=%d MemorySanitizer pointers to real functions "
                "point into the runtime", DETSIM_MSAN_REAL_POINTERS_MAX);
    detsim__finish(DETSIM_CLASS_inconclusive, 0, "reason=limit");
  }
  unsigned i = repointed++;
  char icpt[sizeof names[0] + 16] = "___interceptor_";
  strcat(icpt, fn);
  detsim__msan_ours[i] = (void *)*slot;
  detsim__msan_libc[i] = libc;
  detsim__msan_icpt[i] = detsim__first_definition(icpt);
  strcpy(names[i], fn);
  /* Visible to MSan's code on every thread from here on; no other thread
   * runs yet (the runtime's constructor). */
  *slot = (uintptr_t)(detsim__msan_to_real + (size_t)i * TRAMPOLINE_BYTES);
}

static void note_other(const char *fn) {
  size_t n = strlen(fn) + 1;
  if (others_used + n > sizeof others) {
    detsim__msg("error: MemorySanitizer's pointers to real functions have more than "
                "DETSIM_MSAN_OTHER_NAMES_BYTES_MAX=%u bytes of names", DETSIM_MSAN_OTHER_NAMES_BYTES_MAX);
    detsim__finish(DETSIM_CLASS_inconclusive, 0, "reason=limit");
  }
  memcpy(others + others_used, fn, n);
  others_used += n;
}

static bool is_other(const char *fn) {
  for (size_t at = 0; at < others_used; at += strlen(others + at) + 1)
    if (strcmp(others + at, fn) == 0) return true;
  return false;
}

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
    const char *strs = (const char *)(image + strtab->sh_offset);
    for (size_t k = 0; k < n; k++) {
      if (ELF64_ST_TYPE(syms[k].st_info) != STT_OBJECT || syms[k].st_name >= strtab->sh_size) continue;
      char fn[sizeof names[0]];
      if (!real_pointer_name(strs + syms[k].st_name, fn, sizeof fn)) continue;
      uintptr_t *slot = (uintptr_t *)(base + syms[k].st_value);
      if (*slot >= own_lo && *slot < own_hi) repoint(slot, fn);
      else note_other(fn);
    }
  }
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
  detsim__msan_unpoison(&st, sizeof st); /* the kernel wrote it */
  long map = raw_syscall(SYS_mmap, 0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
  if (map < 0 && map > -4096) setup_failed("cannot map /proc/self/exe", -map);
  /* The kernel filled the mapping: MSan saw no store. */
  detsim__msan_unpoison((void *)map, (size_t)st.st_size);
  repoint_symtab((const unsigned char *)map, (size_t)st.st_size, base);
  raw_syscall(SYS_munmap, map, st.st_size, 0, 0, 0, 0);
  if (repointed == 0)
    setup_failed("no MemorySanitizer pointer to a real function aims into the runtime in the executable's symbol "
                 "table (is it stripped? a -fsanitize=memory simulation build must keep .symtab)", 0);
}

void *detsim__msan_through_interceptor(const char *name, void *real) {
  for (unsigned i = 0; i < repointed; i++)
    if (strcmp(names[i], name) == 0)
      return detsim__msan_icpt[i] ? (void *)(detsim__msan_via_icpt + (size_t)i * TRAMPOLINE_BYTES) : real;
  /* MSan may intercept it with its pointer at libc's already (a function
   * the runtime does not export, pthread_mutexattr_gettype): its
   * interceptor never comes to us.  Any other is libc's directly: an
   * interceptor whose pointer was not seen could lead back to us. */
  if (strlen(name) >= sizeof names[0] || !is_other(name)) return real;
  char icpt[sizeof names[0] + 16] = "___interceptor_";
  strcat(icpt, name);
  void *p = detsim__first_definition(icpt);
  return p ? p : real;
}

#else

/* ISO C wants a translation unit to declare something. */
typedef int detsim__msan_unused;

#endif
