/* Sanitizer code found by its symbols.
 *
 * Two things the program's segments do not tell:
 *  - where a statically linked sanitizer runtime is.  clang has shared
 *    runtimes of ASan and TSan only; LeakSanitizer alone, MemorySanitizer
 *    and UBSan alone are linked into the executable, whose text then holds
 *    the program and the sanitizer both.  clang links such a runtime
 *    --whole-archive before the program's own objects, so its text is one
 *    span of .text: from the lowest to the highest end of the functions in
 *    the sanitizer's namespaces (__sanitizer, __interception, __lsan, ...).
 *    The span must not hold `main`, or the program would be mistaken for
 *    the sanitizer; then there is no span and the run says so.
 *  - which of a sanitizer's code calls us on the program's behalf: its
 *    interceptors (`___interceptor_read` for an uninstrumented caller's
 *    read) are the program's path into the simulation; everything else
 *    (its allocator reading the clock through `real_clock_gettime`, its
 *    symbolizer's pipes) is the sanitizer's own business.
 *
 * Symbols are read from the files: the executable's .symtab (its .dynsym
 * when stripped) and a shared runtime's .dynsym, which names every
 * interceptor with its size.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "limits.h"
#include "intercept/intercept.h"
#include "core/core.h"
#include "sanitize/sanitize.h"

struct image {
  const unsigned char *map;
  size_t size;
  const ElfW(Sym) *syms;
  size_t n_syms;
  const char *names;
  size_t names_size;
  uintptr_t bias;
};


struct span {
  uintptr_t lo, hi;
};
static struct span interceptors[DETSIM_SANITIZER_INTERCEPTORS_MAX];
static unsigned interceptor_count;

static int by_start(const void *a, const void *b) {
  const struct span *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool within(const struct image *im, uint64_t off, uint64_t len) {
  return off <= im->size && len <= im->size - off;
}

/* Maps `path` and finds its symbol table (`.symtab`, else `.dynsym`).
 * False, with nothing mapped, for a file that is not a readable ELF. */
static bool image_open(struct image *im, const char *path, uintptr_t bias) {
  memset(im, 0, sizeof *im);
  int fd = REAL(open)(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  void *p = MAP_FAILED;
  if (REAL(fstat)(fd, &st) == 0 && st.st_size > (off_t)sizeof(ElfW(Ehdr)))
    p = REAL(mmap)(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  REAL(close)(fd);
  if (p == MAP_FAILED) return false;
  im->map = p;
  im->size = (size_t)st.st_size;
  im->bias = bias;
  const ElfW(Ehdr) *eh = p;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
      !within(im, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr))))
    goto bad;
  const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(im->map + eh->e_shoff);
  const ElfW(Shdr) *table = NULL;
  for (unsigned i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && table == NULL)) table = &sh[i];
  if (table == NULL || table->sh_link >= eh->e_shnum || table->sh_entsize != sizeof(ElfW(Sym))) goto bad;
  const ElfW(Shdr) *strs = &sh[table->sh_link];
  if (!within(im, table->sh_offset, table->sh_size) || !within(im, strs->sh_offset, strs->sh_size) ||
      strs->sh_size == 0)
    goto bad;
  im->syms = (const ElfW(Sym) *)(im->map + table->sh_offset);
  im->n_syms = table->sh_size / sizeof(ElfW(Sym));
  im->names = (const char *)im->map + strs->sh_offset;
  im->names_size = strs->sh_size;
  return true;
bad:
  munmap((void *)im->map, im->size);
  memset(im, 0, sizeof *im);
  return false;
}

static void image_close(struct image *im) {
  if (im->map) munmap((void *)im->map, im->size);
  memset(im, 0, sizeof *im);
}

/* The defined function `i`'s name, NULL if it is none. */
static const char *function_name(const struct image *im, size_t i) {
  const ElfW(Sym) *s = &im->syms[i];
  if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF || s->st_value == 0) return NULL;
  if (s->st_name >= im->names_size || memchr(im->names + s->st_name, '\0', im->names_size - s->st_name) == NULL)
    return NULL;
  return im->names + s->st_name;
}

static bool is_interceptor(const char *name) {
  if (strncmp(name, "___interceptor_", 15) == 0) return true;
  /* The trampolines only jump: no return address is ever in one. */
  return strncmp(name, "__interceptor_", 14) == 0 && strncmp(name, "__interceptor_trampoline_", 25) != 0;
}

static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && strcmp(s + n - t, tail) == 0;
}

/* A function of a sanitizer runtime, by its C prefix or C++ namespace.
 * Not the hooks a program (or detsim-cc's objects after it) may define:
 * `__tsan_default_options`, the coverage callbacks. */
static bool is_sanitizer_function(const char *name) {
  if (ends_with(name, "_default_options") || ends_with(name, "_default_suppressions") ||
      strncmp(name, "__sanitizer_cov_", 16) == 0)
    return false;
  static const char *const c_prefixes[] = {
    "__sanitizer_", "__interceptor_", "___interceptor_", "__lsan_", "__msan_", "__ubsan_", "__asan_", "__tsan_",
  };
  static const char *const namespaces[] = {
    "11__sanitizer", "14__interception", "6__lsan", "6__msan", "7__ubsan", "6__asan", "6__tsan",
  };
  for (size_t i = 0; i < sizeof c_prefixes / sizeof c_prefixes[0]; i++)
    if (strncmp(name, c_prefixes[i], strlen(c_prefixes[i])) == 0) return true;
  const char *rest = NULL;
  if (strncmp(name, "_ZNK", 4) == 0) rest = name + 4;
  else if (strncmp(name, "_ZN", 3) == 0) rest = name + 3;
  else if (strncmp(name, "_Z", 2) == 0) rest = name + 2;
  if (rest == NULL) return false;
  for (size_t i = 0; i < sizeof namespaces / sizeof namespaces[0]; i++)
    if (strncmp(rest, namespaces[i], strlen(namespaces[i])) == 0) return true;
  return false;
}

static void note_interceptors(const struct image *im) {
  for (size_t i = 0; i < im->n_syms; i++) {
    const char *name = function_name(im, i);
    if (name == NULL || !is_interceptor(name) || im->syms[i].st_size == 0) continue;
    if (interceptor_count == DETSIM_SANITIZER_INTERCEPTORS_MAX) {
      detsim__msg("error: more than DETSIM_SANITIZER_INTERCEPTORS_MAX=%d interceptors in sanitizer runtimes",
                  DETSIM_SANITIZER_INTERCEPTORS_MAX);
      detsim__finish(DETSIM_CLASS_inconclusive, 0, "reason=limit");
    }
    uintptr_t lo = im->bias + im->syms[i].st_value;
    interceptors[interceptor_count++] = (struct span){ lo, lo + im->syms[i].st_size };
  }
  /* At start-up, once per runtime: lookups come later, from any thread. */
  qsort(interceptors, interceptor_count, sizeof interceptors[0], by_start);
}

void detsim__sanitize_note_shared_runtime(const char *path, uintptr_t bias) {
  struct image im;
  if (!image_open(&im, path, bias)) return;
  note_interceptors(&im);
  image_close(&im);
}

/* The executable is the first object dl_iterate_phdr names. */
static int first_object_bias(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  *(uintptr_t *)arg = info->dlpi_addr;
  return 1;
}

bool detsim__sanitize_find_static_runtime(uintptr_t *lo_out, uintptr_t *hi_out) {
  struct image exe;
  uintptr_t bias = 0;
  dl_iterate_phdr(first_object_bias, &bias);
  if (!image_open(&exe, "/proc/self/exe", bias)) {
    detsim__msg("warning: cannot read the executable's symbols (/proc/self/exe): the statically linked sanitizer "
                "runtime's own calls cannot be told from the program's");
    return false;
  }
  uintptr_t lo = UINTPTR_MAX, hi = 0, main_pc = 0;
  for (size_t i = 0; i < exe.n_syms; i++) {
    const char *name = function_name(&exe, i);
    if (name == NULL) continue;
    uintptr_t at = exe.bias + exe.syms[i].st_value;
    if (strcmp(name, "main") == 0) main_pc = at;
    if (!is_sanitizer_function(name)) continue;
    if (at < lo) lo = at;
    if (at + exe.syms[i].st_size > hi) hi = at + exe.syms[i].st_size;
  }
  bool found = hi != 0;
  if (found && main_pc >= lo && main_pc < hi) {
    detsim__msg("warning: the program's main lies inside the statically linked sanitizer runtime's code span "
                "[%#lx, %#lx): its own calls cannot be told from the program's", (unsigned long)lo,
                (unsigned long)hi);
    found = false;
  }
  if (found) note_interceptors(&exe);
  image_close(&exe);
  *lo_out = lo;
  *hi_out = hi;
  return found;
}

bool detsim__sanitizer_interceptor_pc(uintptr_t pc) {
  if (interceptor_count == 0) return false;
  /* The last span starting at or before pc. */
  unsigned lo = 0, hi = interceptor_count;
  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;
    if (interceptors[mid].lo <= pc) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && pc < interceptors[lo - 1].hi;
}
