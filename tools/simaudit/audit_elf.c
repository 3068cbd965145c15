/* ELF parsing for simaudit (see audit_elf.h).  Every offset read from the
 * file is checked against its size before use: the input is untrusted and a
 * truncated or hostile file must give an error, never a crash. */
#include "audit_elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool in_file(const struct audit_elf *e, uint64_t off, uint64_t len) {
  return off <= e->size && len <= e->size - off;
}

/* A NUL-terminated string at `off` inside [base, base+len) of the file. */
static const char *str_at(const struct audit_elf *e, uint64_t base, uint64_t len, uint64_t off) {
  if (!in_file(e, base, len) || off >= len) return NULL;
  const char *s = (const char *)e->map + base + off;
  if (memchr(s, '\0', len - off) == NULL) return NULL;
  return s;
}

static const Elf64_Shdr *shdr(const struct audit_elf *e, unsigned i) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->map;
  return (const Elf64_Shdr *)(e->map + eh->e_shoff + (uint64_t)i * sizeof(Elf64_Shdr));
}

static int cmp_func(const void *a, const void *b) {
  const struct audit_func *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Function symbols of one symbol table section. */
static void read_funcs(struct audit_elf *e, const Elf64_Shdr *symtab) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->map;
  if (symtab->sh_link >= eh->e_shnum || !in_file(e, symtab->sh_offset, symtab->sh_size)) return;
  const Elf64_Shdr *strtab = shdr(e, symtab->sh_link);
  size_t n = symtab->sh_size / sizeof(Elf64_Sym);
  const Elf64_Sym *syms = (const Elf64_Sym *)(e->map + symtab->sh_offset);
  e->funcs = realloc(e->funcs, (size_t)(e->n_funcs + (int)n) * sizeof *e->funcs);
  if (e->funcs == NULL && n > 0) abort();
  for (size_t i = 0; i < n; i++) {
    if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC || syms[i].st_shndx == SHN_UNDEF) continue;
    const char *name = str_at(e, strtab->sh_offset, strtab->sh_size, syms[i].st_name);
    if (name == NULL || name[0] == '\0') continue;
    e->funcs[e->n_funcs++] = (struct audit_func){name, syms[i].st_value, syms[i].st_size};
  }
}

/* Version index -> the file of its Verneed entry (libc.so.6 for GLIBC_2.2.5). */
static const char *version_file(const struct audit_elf *e, const Elf64_Shdr *verneed,
                                uint16_t index) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->map;
  if (verneed == NULL || verneed->sh_link >= eh->e_shnum) return NULL;
  const Elf64_Shdr *strtab = shdr(e, verneed->sh_link);
  uint64_t off = verneed->sh_offset;
  for (unsigned k = 0; k < verneed->sh_info && in_file(e, off, sizeof(Elf64_Verneed)); k++) {
    const Elf64_Verneed *vn = (const Elf64_Verneed *)(e->map + off);
    uint64_t aux = off + vn->vn_aux;
    for (unsigned j = 0; j < vn->vn_cnt && in_file(e, aux, sizeof(Elf64_Vernaux)); j++) {
      const Elf64_Vernaux *va = (const Elf64_Vernaux *)(e->map + aux);
      if ((va->vna_other & 0x7fff) == (index & 0x7fff))
        return str_at(e, strtab->sh_offset, strtab->sh_size, vn->vn_file);
      if (va->vna_next == 0) break;
      aux += va->vna_next;
    }
    if (vn->vn_next == 0) break;
    off += vn->vn_next;
  }
  return NULL;
}

/* Imports: every JUMP_SLOT and GLOB_DAT relocation naming an undefined symbol. */
static void read_imports(struct audit_elf *e, const Elf64_Shdr *rela, const Elf64_Shdr *verneed,
                         const Elf64_Shdr *versym) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->map;
  if (rela->sh_link >= eh->e_shnum || !in_file(e, rela->sh_offset, rela->sh_size)) return;
  const Elf64_Shdr *dynsym = shdr(e, rela->sh_link);
  if (dynsym->sh_link >= eh->e_shnum || !in_file(e, dynsym->sh_offset, dynsym->sh_size)) return;
  const Elf64_Shdr *dynstr = shdr(e, dynsym->sh_link);
  size_t n_syms = dynsym->sh_size / sizeof(Elf64_Sym);
  const Elf64_Sym *syms = (const Elf64_Sym *)(e->map + dynsym->sh_offset);
  size_t n = rela->sh_size / sizeof(Elf64_Rela);
  const Elf64_Rela *r = (const Elf64_Rela *)(e->map + rela->sh_offset);
  e->imports = realloc(e->imports, (size_t)(e->n_imports + (int)n) * sizeof *e->imports);
  if (e->imports == NULL && n > 0) abort();
  for (size_t i = 0; i < n; i++) {
    uint32_t type = ELF64_R_TYPE(r[i].r_info);
    size_t si = ELF64_R_SYM(r[i].r_info);
    if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || si == 0 || si >= n_syms)
      continue;
    if (syms[si].st_shndx != SHN_UNDEF) continue;
    const char *name = str_at(e, dynstr->sh_offset, dynstr->sh_size, syms[si].st_name);
    if (name == NULL || name[0] == '\0') continue;
    const char *from = NULL;
    if (versym != NULL && in_file(e, versym->sh_offset + si * 2, 2) &&
        si * 2 < versym->sh_size) {
      uint16_t v = *(const uint16_t *)(e->map + versym->sh_offset + si * 2);
      if ((v & 0x7fff) >= 2) from = version_file(e, verneed, v);
    }
    unsigned st = ELF64_ST_TYPE(syms[si].st_info);
    e->imports[e->n_imports++] = (struct audit_import){
        name, from, st == STT_FUNC || st == STT_GNU_IFUNC, r[i].r_offset, 0};
  }
}

static void read_dynamic(struct audit_elf *e, const Elf64_Shdr *dyn) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->map;
  if (dyn->sh_link >= eh->e_shnum || !in_file(e, dyn->sh_offset, dyn->sh_size)) return;
  const Elf64_Shdr *str = shdr(e, dyn->sh_link);
  size_t n = dyn->sh_size / sizeof(Elf64_Dyn);
  const Elf64_Dyn *d = (const Elf64_Dyn *)(e->map + dyn->sh_offset);
  e->needed = calloc(n + 1, sizeof *e->needed);
  if (e->needed == NULL) abort();
  for (size_t i = 0; i < n && d[i].d_tag != DT_NULL; i++) {
    if (d[i].d_tag != DT_NEEDED) continue;
    const char *s = str_at(e, str->sh_offset, str->sh_size, d[i].d_un.d_val);
    if (s != NULL) e->needed[e->n_needed++] = s;
  }
}

int audit_elf_open(const char *path, struct audit_elf *e, char *err, size_t errlen) {
  memset(e, 0, sizeof *e);
  e->path = path;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "%s: not a regular file", path);
    close(fd);
    return -1;
  }
  e->size = (size_t)st.st_size;
  if (e->size < sizeof(Elf64_Ehdr)) {
    snprintf(err, errlen, "%s: not an ELF file (%zu bytes)", path, e->size);
    close(fd);
    return -1;
  }
  void *m = mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno));
    return -1;
  }
  e->map = m;
  const Elf64_Ehdr *eh = m;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
    snprintf(err, errlen, "%s: not an ELF file", path);
    goto fail;
  }
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64) {
    snprintf(err, errlen, "%s: not an x86-64 ELF64 file (the simulation runs on x86-64 only)",
             path);
    goto fail;
  }
  if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) {
    snprintf(err, errlen, "%s: not an executable or shared library (an object file? audit "
             "the linked program)", path);
    goto fail;
  }
  if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
      !in_file(e, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
      eh->e_shstrndx >= eh->e_shnum) {
    snprintf(err, errlen, "%s: no readable section headers", path);
    goto fail;
  }
  if (eh->e_phentsize == sizeof(Elf64_Phdr) &&
      in_file(e, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr))) {
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->map + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++)
      if (ph[i].p_type == PT_INTERP)
        e->interp = str_at(e, ph[i].p_offset, ph[i].p_filesz, 0);
  }
  e->shared = eh->e_type == ET_DYN && e->interp == NULL;

  const Elf64_Shdr *names = shdr(e, eh->e_shstrndx);
  const Elf64_Shdr *symtab = NULL, *dynsym = NULL, *verneed = NULL, *versym = NULL;
  e->sections = calloc(eh->e_shnum, sizeof *e->sections);
  if (e->sections == NULL) abort();
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    const Elf64_Shdr *s = shdr(e, i);
    const char *name = str_at(e, names->sh_offset, names->sh_size, s->sh_name);
    if (name == NULL) name = "";
    if (s->sh_type == SHT_SYMTAB) symtab = s;
    if (s->sh_type == SHT_DYNSYM) dynsym = s;
    if (s->sh_type == SHT_GNU_verneed) verneed = s;
    if (s->sh_type == SHT_GNU_versym) versym = s;
    if (s->sh_type == SHT_DYNAMIC) read_dynamic(e, s);
    if (!(s->sh_flags & SHF_EXECINSTR) || s->sh_type != SHT_PROGBITS) continue;
    if (!in_file(e, s->sh_offset, s->sh_size)) {
      snprintf(err, errlen, "%s: section %s lies outside the file (truncated?)", path, name);
      goto fail;
    }
    e->sections[e->n_sections++] = (struct audit_section){
        name, s->sh_addr, s->sh_size, e->map + s->sh_offset, true,
        strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 ||
            strcmp(name, ".plt.got") == 0};
  }
  if (symtab != NULL || dynsym != NULL) read_funcs(e, symtab != NULL ? symtab : dynsym);
  qsort(e->funcs, (size_t)e->n_funcs, sizeof *e->funcs, cmp_func);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    const Elf64_Shdr *s = shdr(e, i);
    if (s->sh_type == SHT_RELA && s->sh_link != 0 && shdr(e, s->sh_link) == dynsym)
      read_imports(e, s, verneed, versym);
  }
  if (e->needed == NULL) {
    e->needed = calloc(1, sizeof *e->needed);
    if (e->needed == NULL) abort();
  }
  return 0;
fail:
  audit_elf_close(e);
  return -1;
}

void audit_elf_close(struct audit_elf *e) {
  if (e->map != NULL) munmap((void *)e->map, e->size);
  free(e->sections);
  free(e->funcs);
  free(e->imports);
  free(e->plts);
  free(e->needed);
  memset(e, 0, sizeof *e);
}

const struct audit_func *audit_elf_func_at(const struct audit_elf *e, uint64_t addr) {
  int lo = 0, hi = e->n_funcs - 1, best = -1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (e->funcs[mid].addr <= addr) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  /* Aliases share an address: any of them contains it if one does. */
  for (int i = best; i >= 0 && e->funcs[i].addr == e->funcs[best].addr; i--)
    if (addr < e->funcs[i].addr + e->funcs[i].size) return &e->funcs[i];
  /* A symbol without a size (a label in hand-written asm) owns what follows. */
  if (best >= 0 && e->funcs[best].size == 0) return &e->funcs[best];
  return NULL;
}

int audit_elf_import_at_got(const struct audit_elf *e, uint64_t got) {
  for (int i = 0; i < e->n_imports; i++)
    if (e->imports[i].got == got) return i;
  return -1;
}

int audit_elf_import_at_plt(const struct audit_elf *e, uint64_t addr) {
  for (int i = 0; i < e->n_plts; i++)
    if (addr >= e->plts[i].start && addr < e->plts[i].end) return e->plts[i].import;
  return -1;
}
