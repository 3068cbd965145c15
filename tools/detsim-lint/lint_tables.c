/* The runtime's own tables, compiled in (as simaudit does), so the lint and
 * the simulation never disagree on what is unsupported:
 * runtime/intercept_table.def (functions) and runtime/syscall_table.def
 * (system call numbers).  And the x86 intrinsics that run an instruction the
 * simulation cannot see, by the instruction they run.
 */
#include <string.h>

#include "lint.h"

enum fn_class { FN_REWRITE, FN_YIELD, FN_PASSTHROUGH, FN_UNSUPPORTED };

static const struct {
  const char *name;
  enum fn_class cls;
  const char *note;
} functions[] = {
#define DETSIM_FN(name, canonical, cls, group, note) {#name, FN_##cls, note},
#include "../../runtime/intercept_table.def"
#undef DETSIM_FN
};

const char *lint_unsupported_fn(const char *name) {
  for (size_t i = 0; i < sizeof functions / sizeof *functions; i++)
    if (strcmp(functions[i].name, name) == 0)
      return functions[i].cls == FN_UNSUPPORTED ? functions[i].note : NULL;
  return NULL;
}

enum sys_class { SYS_ROUTE, SYS_SIMULATED, SYS_NOSYS, SYS_PASSTHROUGH, SYS_UNSUPPORTED };

static const struct {
  long long number;
  const char *name;
  enum sys_class cls;
  const char *note;
} syscalls[] = {
#define DETSIM_SYSCALL(number, name, cls, fds, note) {number, #name, SYS_##cls, note},
#include "../../runtime/syscall_table.def"
#undef DETSIM_SYSCALL
};

enum lint_syscall_class lint_syscall_class(long long number, const char **name, const char **note) {
  *name = NULL;
  *note = NULL;
  for (size_t i = 0; i < sizeof syscalls / sizeof *syscalls; i++) {
    if (syscalls[i].number != number) continue;
    *name = syscalls[i].name;
    *note = syscalls[i].note;
    switch (syscalls[i].cls) {
    case SYS_NOSYS: return LINT_SYS_NOSYS;
    case SYS_UNSUPPORTED: return LINT_SYS_UNSUPPORTED;
    default: return LINT_SYS_OK;
    }
  }
  /* runtime/syscall_table.def: a number not in the table is UNSUPPORTED. */
  return LINT_SYS_UNKNOWN;
}

/* Clang's builtins and the <x86intrin.h>/<cpuid.h> wrappers over them. */
static const struct {
  const char *name;
  const char *insn;
} intrinsics[] = {
    {"__rdtsc", "rdtsc"},
    {"_rdtsc", "rdtsc"},
    {"__builtin_ia32_rdtsc", "rdtsc"},
    {"__builtin_readcyclecounter", "rdtsc"},
    {"__rdtscp", "rdtscp"},
    {"__builtin_ia32_rdtscp", "rdtscp"},
    {"_rdrand16_step", "rdrand"},
    {"_rdrand32_step", "rdrand"},
    {"_rdrand64_step", "rdrand"},
    {"__builtin_ia32_rdrand16_step", "rdrand"},
    {"__builtin_ia32_rdrand32_step", "rdrand"},
    {"__builtin_ia32_rdrand64_step", "rdrand"},
    {"_rdseed16_step", "rdseed"},
    {"_rdseed32_step", "rdseed"},
    {"_rdseed64_step", "rdseed"},
    {"__builtin_ia32_rdseed16_step", "rdseed"},
    {"__builtin_ia32_rdseed32_step", "rdseed"},
    {"__builtin_ia32_rdseed64_step", "rdseed"},
    {"_mm_pause", "pause"},
    {"__builtin_ia32_pause", "pause"},
    {"__get_cpuid", "cpuid"},
    {"__get_cpuid_count", "cpuid"},
    {"__get_cpuid_max", "cpuid"},
};

const char *lint_intrinsic_insn(const char *name) {
  for (size_t i = 0; i < sizeof intrinsics / sizeof *intrinsics; i++)
    if (strcmp(intrinsics[i].name, name) == 0) return intrinsics[i].insn;
  return NULL;
}
