/* Reading DT_NEEDED and symbol names of an ELF64 file (see st_elf.h).
 *
 * The file is mapped read-only and every offset is checked against its
 * size before use: a truncated or hostile file gives "not ELF", never a
 * crash. */
#include "st_elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct image {
  const unsigned char *p;
  size_t size;
};

static bool in_bounds(const struct image *im, uint64_t off, uint64_t len) {
  return off <= im->size && len <= im->size - off;
}

static const char *str_at(const struct image *im, const Elf64_Shdr *strtab, uint64_t idx) {
  if (idx >= strtab->sh_size || !in_bounds(im, strtab->sh_offset, strtab->sh_size)) return NULL;
  const char *s = (const char *)im->p + strtab->sh_offset + idx;
  /* NUL within the table. */
  if (!memchr(s, '\0', strtab->sh_size - idx)) return NULL;
  return s;
}

static void add_name(struct st_elf_info *out, const char *name) {
  size_t k = strlen(out->names);
  if (k + strlen(name) + 3 >= sizeof out->names) return;
  snprintf(out->names + k, sizeof out->names - k, "%s%s", k ? ", " : "", name);
}

static void scan(const struct image *im, struct st_elf_info *out) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im->p;
  if (!in_bounds(im, 0, sizeof *eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
    return;
  if (eh->e_shentsize != sizeof(Elf64_Shdr) || !in_bounds(im, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
    return;
  out->is_elf = true;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(im->p + eh->e_shoff);
  const Elf64_Shdr *names = eh->e_shstrndx < eh->e_shnum ? &sh[eh->e_shstrndx] : NULL;
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    const Elf64_Shdr *s = &sh[i];
    /* detsim-cc --fuzz's inline 8-bit counters: a byte each (SHT_NOBITS). */
    const char *sname = names ? str_at(im, names, s->sh_name) : NULL;
    if (sname && !strcmp(sname, "__sancov_cntrs")) out->fuzz_counters += s->sh_size;
    if (s->sh_link >= eh->e_shnum || !in_bounds(im, s->sh_offset, s->sh_size)) continue;
    const Elf64_Shdr *strtab = &sh[s->sh_link];
    if (s->sh_type == SHT_DYNAMIC) {
      const Elf64_Dyn *d = (const Elf64_Dyn *)(im->p + s->sh_offset);
      for (size_t k = 0; k < s->sh_size / sizeof *d && d[k].d_tag != DT_NULL; k++) {
        if (d[k].d_tag != DT_NEEDED) continue;
        const char *name = str_at(im, strtab, d[k].d_un.d_val);
        if (name && strstr(name, "libdetsim_rt")) {
          out->needs_runtime = true;
          snprintf(out->needed, sizeof out->needed, "%s", name);
        }
      }
    } else if (s->sh_type == SHT_DYNSYM || s->sh_type == SHT_SYMTAB) {
      const Elf64_Sym *sym = (const Elf64_Sym *)(im->p + s->sh_offset);
      for (size_t k = 0; k < s->sh_size / sizeof *sym; k++) {
        const char *name = str_at(im, strtab, sym[k].st_name);
        if (!name || !strstr(name, "detsim")) continue;
        if (s->sh_type == SHT_DYNSYM) {
          out->dynamic_detsim++;
          add_name(out, name);
        } else {
          out->local_detsim++;
        }
      }
    }
  }
}

int st_elf_inspect(const char *path, struct st_elf_info *out) {
  memset(out, 0, sizeof *out);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    close(fd);
    return 0;
  }
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return -1;
  struct image im = { p, (size_t)st.st_size };
  scan(&im, out);
  munmap(p, (size_t)st.st_size);
  return 0;
}

bool st_elf_plain(const struct st_elf_info *e) {
  return e->is_elf && !e->needs_runtime && e->dynamic_detsim == 0;
}
