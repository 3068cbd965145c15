/* Call sites as source locations: a trace names a site "module+0xOFF" (an
 * offset from the module's load address, a return address); the programs a
 * replay ran are known by path, so llvm-symbolizer (or addr2line) turns
 * their sites into "function file:line".  Without either tool, or for a
 * module that is not one of those programs, the site stays as it is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simreplay.h"

#define SR_PROGRAMS_MAX 4

static char *programs[SR_PROGRAMS_MAX];
static int nprograms;

void sr_symbolize_program(const char *prog) {
  char *path = st_find_program(prog);
  if (!path || nprograms == SR_PROGRAMS_MAX) {
    free(path);
    return;
  }
  programs[nprograms++] = path;
}

static const char *symbolizer(bool *is_llvm) {
  static const char *const llvm[] = { DETSIM_LLVM_SYMBOLIZER, "/usr/bin/llvm-symbolizer-19", "/usr/bin/llvm-symbolizer" };
  for (size_t i = 0; i < sizeof llvm / sizeof llvm[0]; i++)
    if (llvm[i][0] && access(llvm[i], X_OK) == 0) {
      *is_llvm = true;
      return llvm[i];
    }
  *is_llvm = false;
  return access("/usr/bin/addr2line", X_OK) == 0 ? "/usr/bin/addr2line" : NULL;
}

char *sr_symbolize_site(const char *site, size_t len) {
  const char *plus = memchr(site, '+', len);
  if (!plus || plus + 3 > site + len || plus[1] != '0' || plus[2] != 'x') return NULL;
  size_t mod_len = (size_t)(plus - site);
  const char *path = NULL;
  for (int i = 0; i < nprograms; i++) {
    const char *base = st_basename(programs[i]);
    if (strlen(base) == mod_len && !strncmp(base, site, mod_len)) path = programs[i];
  }
  if (!path) return NULL;
  char *end;
  unsigned long long off = strtoull(plus + 3, &end, 16);
  if (end != site + len || off == 0) return NULL;
  bool is_llvm;
  const char *tool = symbolizer(&is_llvm);
  if (!tool) return NULL;
  /* A site is a return address: the call is the byte before. */
  struct st_buf cmd = { 0 };
  st_shell_quote(&cmd, tool);
  st_buf_puts(&cmd, is_llvm ? " --functions=short --no-inlines --obj=" : " -f -C -e ");
  st_shell_quote(&cmd, path);
  st_buf_printf(&cmd, " 0x%llx 2>/dev/null", off - 1);
  FILE *f = popen(cmd.s, "r");
  st_buf_free(&cmd);
  if (!f) return NULL;
  char fn[512] = "", loc[1024] = "";
  bool ok = fgets(fn, sizeof fn, f) && fgets(loc, sizeof loc, f);
  pclose(f);
  if (!ok) return NULL;
  fn[strcspn(fn, "\n")] = '\0';
  loc[strcspn(loc, "\n")] = '\0';
  if (!strncmp(loc, "??", 2) || !loc[0]) return NULL;
  /* llvm-symbolizer prints file:line:column; keep file:line. */
  char *colon = strrchr(loc, ':');
  if (colon && colon != strchr(loc, ':')) *colon = '\0';
  return st_xasprintf("%s %s", fn, loc);
}
