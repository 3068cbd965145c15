/* Whether an executable is a simulation build (proc/proc.h): the question
 * simworld asks of its nodes' binaries (tools/common/st_elf.c), answered
 * the same way: the loader's view, a DT_NEEDED entry naming libdetsim_rt.
 * Read with pread, without mapping, from a file the exec is about to run. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "limits.h"
#include "proc/proc.h"
#include "intercept/intercept.h"

#define RUNTIME_NEEDED "libdetsim_rt"
/* A dynamic section or program header table larger than this is no
 * executable this probe needs to believe. */
#define PROBE_PHDRS_MAX 256
#define PROBE_DYN_MAX 4096

static bool read_at(int fd, void *buf, size_t n, uint64_t off) {
  ssize_t r = pread(fd, buf, n, (off_t)off);
  return r == (ssize_t)n;
}

/* The file offset of virtual address `vaddr`, through the PT_LOAD that
 * maps it; false when none does. */
static bool file_offset(const Elf64_Phdr *ph, unsigned n, uint64_t vaddr, uint64_t *off) {
  for (unsigned i = 0; i < n; i++)
    if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr && vaddr < ph[i].p_vaddr + ph[i].p_filesz) {
      *off = ph[i].p_offset + (vaddr - ph[i].p_vaddr);
      return true;
    }
  return false;
}

static bool needs_runtime(int fd) {
  Elf64_Ehdr eh;
  if (!read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > PROBE_PHDRS_MAX)
    return false;
  Elf64_Phdr ph[PROBE_PHDRS_MAX];
  if (!read_at(fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff)) return false;
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    if (ph[i].p_type != PT_DYNAMIC) continue;
    unsigned n = (unsigned)(ph[i].p_filesz / sizeof(Elf64_Dyn));
    if (n > PROBE_DYN_MAX) n = PROBE_DYN_MAX;
    Elf64_Dyn *dyn = malloc(n * sizeof *dyn);
    if (dyn == NULL || !read_at(fd, dyn, n * sizeof *dyn, ph[i].p_offset)) {
      free(dyn);
      return false;
    }
    uint64_t strtab = 0, stroff;
    for (unsigned k = 0; k < n && dyn[k].d_tag != DT_NULL; k++)
      if (dyn[k].d_tag == DT_STRTAB) strtab = dyn[k].d_un.d_ptr;
    bool found = false;
    if (strtab && file_offset(ph, eh.e_phnum, strtab, &stroff)) {
      for (unsigned k = 0; k < n && dyn[k].d_tag != DT_NULL && !found; k++) {
        if (dyn[k].d_tag != DT_NEEDED) continue;
        char name[256];
        ssize_t r = pread(fd, name, sizeof name - 1, (off_t)(stroff + dyn[k].d_un.d_val));
        if (r <= 0) continue;
        name[r] = '\0';
        found = strncmp(name, RUNTIME_NEEDED, strlen(RUNTIME_NEEDED)) == 0;
      }
    }
    free(dyn);
    return found;
  }
  return false;
}

int detsim__proc_elf_is_sim(const char *path, int fd, bool *sim) {
  int own = -1;
  if (fd < 0) {
    own = REAL(open)(path, O_RDONLY | O_CLOEXEC);
    if (own < 0) return errno;
    fd = own;
  }
  *sim = needs_runtime(fd);
  if (own >= 0) REAL(close)(own);
  return 0;
}

int detsim__proc_exec_resolve(const char *file, bool search, char *out, size_t size) {
  if (file == NULL || file[0] == '\0') return ENOENT;
  if (!search || strchr(file, '/')) {
    if (strlen(file) >= size) return ENAMETOOLONG;
    snprintf(out, size, "%s", file);
    return 0;
  }
  /* execvp's search: each PATH entry in turn (an empty one is the working
   * directory); EACCES if one was found but not executable. */
  const char *path = getenv("PATH");
  if (path == NULL) path = "/bin:/usr/bin";
  int err = ENOENT;
  for (const char *p = path;; ) {
    const char *colon = strchrnul(p, ':');
    size_t len = (size_t)(colon - p);
    int k = len ? snprintf(out, size, "%.*s/%s", (int)len, p, file) : snprintf(out, size, "%s", file);
    if (k > 0 && (size_t)k < size) {
      struct stat st;
      if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
        if (access(out, X_OK) == 0) return 0;
        err = EACCES;
      }
    }
    if (*colon == '\0') break;
    p = colon + 1;
  }
  return err;
}
