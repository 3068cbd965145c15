/* The disassembly pass of simaudit: every instruction of an object's code,
 * decoded with Capstone, checked for the ways code leaves the simulation.
 *
 * - system call instructions (syscall, sysenter, int 0x80): the kernel,
 *   directly;
 * - rdtsc, rdtscp (the real time-stamp counter), rdrand, rdseed (hardware
 *   randomness), cpuid (the real machine);
 * - atomics (lock-prefixed, xchg with memory, cmpxchg*) the pass did not
 *   see.  The pass leaves an atomic instruction in place and puts a call to
 *   __detsim_yield_access right before it, so an atomic whose nearest earlier
 *   call is not that one was compiled without the plugin (or is inline asm);
 * - calls, through the PLT or the GOT, to libc functions the simulation does
 *   not cover (audit_libc_escape); a call the pass renamed to __detsim_NAME
 *   is judged as NAME (the runtime reports an UNSUPPORTED one only when it
 *   runs).
 *
 * The sweep is linear over each executable section, restarting at every
 * function symbol so a byte of padding or data cannot hide what follows.
 */
#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"

#define WHY_SYSCALL "a system call instruction goes to the real kernel, past every model"
#define WHY_TSC "reads the real time-stamp counter, not virtual time"
#define WHY_RANDOM "hardware randomness, not drawn from the seed"
#define WHY_CPUID "reads the real machine"
#define WHY_ATOMIC "an atomic the pass did not see (code compiled without the plugin, or inline asm): no yield point, so its interleavings are never explored"
#define WHY_RUNTIME "does not load libdetsim_rt.so: nothing in it is simulated (build it with detsim-cc)"

/* The glibc files whose functions are classified against the table. */
static bool is_libc_file(const char *f) {
  static const char *const libc[] = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2",
                                     "librt.so.1", "ld-linux-x86-64.so.2"};
  for (size_t i = 0; f != NULL && i < sizeof libc / sizeof *libc; i++)
    if (strcmp(f, libc[i]) == 0) return true;
  return false;
}

static char *xstrdup_or_null(const char *s) {
  if (s == NULL) return NULL;
  char *d = strdup(s);
  if (d == NULL) abort();
  return d;
}

struct audit_finding *audit_add(struct audit_findings *f, const char *kind, const char *object,
                                uint64_t addr, const char *function, const char *detail,
                                const char *why) {
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 64;
    f->v = realloc(f->v, (size_t)f->cap * sizeof *f->v);
    if (f->v == NULL) abort();
  }
  struct audit_finding *x = &f->v[f->n++];
  *x = (struct audit_finding){kind, object, addr, xstrdup_or_null(function),
                              xstrdup_or_null(detail), xstrdup_or_null(why), NULL, 0};
  return x;
}

/* The libc function behind import `i`, or NULL when it is not one we judge:
 * only glibc's functions are; __detsim_NAME is the runtime's version of
 * NAME (the pass renamed the call), judged as NAME. */
static const char *judged_name(const struct audit_import *imp) {
  if (!imp->is_func) return NULL;
  if (strncmp(imp->name, "__detsim_", 9) == 0 && imp->from == NULL)
    return audit_libc_in_table(imp->name + 9) ? imp->name + 9 : NULL; /* else the pass's ABI */
  /* Unversioned: bound at link time to a library other than glibc.  The
   * runtime exports the table's functions under their own names too (it
   * reports the UNSUPPORTED ones when they run); anything else is some
   * other library's, audited with --libs. */
  if (imp->from == NULL) return audit_libc_in_table(imp->name) ? imp->name : NULL;
  return is_libc_file(imp->from) ? imp->name : NULL;
}

/* PLT stubs: each jumps through one GOT slot; the stub runs from the end of
 * the previous such jump (or the section start) to the end of its own. */
static void map_plt(csh cs, struct audit_elf *e, cs_insn *insn) {
  for (int s = 0; s < e->n_sections; s++) {
    const struct audit_section *sec = &e->sections[s];
    if (!sec->plt) continue;
    const uint8_t *code = sec->bytes;
    size_t left = sec->size;
    uint64_t addr = sec->addr, start = sec->addr;
    while (left > 0) {
      if (!cs_disasm_iter(cs, &code, &left, &addr, insn)) {
        code++, left--, addr++;
        continue;
      }
      const cs_x86 *x = &insn->detail->x86;
      if (insn->id != X86_INS_JMP || x->op_count != 1 || x->operands[0].type != X86_OP_MEM ||
          x->operands[0].mem.base != X86_REG_RIP)
        continue;
      uint64_t got = addr + (uint64_t)x->operands[0].mem.disp;
      int imp = audit_elf_import_at_got(e, got);
      if (imp >= 0) {
        e->plts = realloc(e->plts, (size_t)(e->n_plts + 1) * sizeof *e->plts);
        if (e->plts == NULL) abort();
        e->plts[e->n_plts++] = (struct audit_plt){start, addr, imp};
      }
      start = addr;
    }
  }
}

static bool is_atomic(const cs_insn *insn) {
  const cs_x86 *x = &insn->detail->x86;
  if (x->prefix[0] == X86_PREFIX_LOCK) return true;
  switch (insn->id) {
  case X86_INS_CMPXCHG:
  case X86_INS_CMPXCHG8B:
  case X86_INS_CMPXCHG16B:
    return true;
  case X86_INS_XCHG: /* with a memory operand it is locked without the prefix */
    for (int i = 0; i < x->op_count; i++)
      if (x->operands[i].type == X86_OP_MEM) return true;
    return false;
  default:
    return false;
  }
}

/* What the instruction reaches: the import it calls or jumps to, or -1. */
static int callee_import(const struct audit_elf *e, const cs_insn *insn) {
  const cs_x86 *x = &insn->detail->x86;
  if (x->op_count != 1) return -1;
  const cs_x86_op *op = &x->operands[0];
  if (op->type == X86_OP_IMM) return audit_elf_import_at_plt(e, (uint64_t)op->imm);
  if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP && op->mem.index == X86_REG_INVALID)
    return audit_elf_import_at_got(e, insn->address + insn->size + (uint64_t)op->mem.disp);
  return -1;
}

static void check_insn(struct audit_elf *e, const cs_insn *insn, bool *after_yield,
                       struct audit_findings *out) {
  const struct audit_func *fn = audit_elf_func_at(e, insn->address);
  const char *fname = fn != NULL ? fn->name : NULL;
  char text[160];
  snprintf(text, sizeof text, "%s%s%s", insn->mnemonic, insn->op_str[0] ? " " : "",
           insn->op_str);
  switch (insn->id) {
  case X86_INS_SYSCALL:
  case X86_INS_SYSENTER:
    audit_add(out, "syscall", e->path, insn->address, fname, text, WHY_SYSCALL);
    return;
  case X86_INS_INT:
    if (insn->detail->x86.op_count == 1 && insn->detail->x86.operands[0].imm == 0x80)
      audit_add(out, "syscall", e->path, insn->address, fname, text, WHY_SYSCALL);
    return;
  case X86_INS_RDTSC:
    audit_add(out, "rdtsc", e->path, insn->address, fname, text, WHY_TSC);
    return;
  case X86_INS_RDTSCP:
    audit_add(out, "rdtscp", e->path, insn->address, fname, text, WHY_TSC);
    return;
  case X86_INS_RDRAND:
    audit_add(out, "rdrand", e->path, insn->address, fname, text, WHY_RANDOM);
    return;
  case X86_INS_RDSEED:
    audit_add(out, "rdseed", e->path, insn->address, fname, text, WHY_RANDOM);
    return;
  case X86_INS_CPUID:
    audit_add(out, "cpuid", e->path, insn->address, fname, text, WHY_CPUID);
    return;
  case X86_INS_CALL:
  case X86_INS_JMP: {
    int imp = callee_import(e, insn);
    if (insn->id == X86_INS_CALL)
      *after_yield = imp >= 0 && strcmp(e->imports[imp].name, "__detsim_yield_access") == 0;
    if (imp < 0) return;
    e->imports[imp].calls++;
    const char *name = judged_name(&e->imports[imp]);
    char why[256];
    if (name != NULL && audit_libc_escape(name, why, sizeof why))
      audit_add(out, "libc", e->path, insn->address, fname, name, why);
    return;
  }
  default:
    if (is_atomic(insn) && !*after_yield)
      audit_add(out, "atomic", e->path, insn->address, fname, text, WHY_ATOMIC);
    return;
  }
}

/* The first function symbol starting after `addr` inside [addr, end), or end. */
static uint64_t next_func_start(const struct audit_elf *e, uint64_t addr, uint64_t end) {
  int lo = 0, hi = e->n_funcs;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (e->funcs[mid].addr <= addr) lo = mid + 1;
    else hi = mid;
  }
  return lo < e->n_funcs && e->funcs[lo].addr < end ? e->funcs[lo].addr : end;
}

static void sweep(csh cs, struct audit_elf *e, const struct audit_section *sec, cs_insn *insn,
                  struct audit_findings *out) {
  uint64_t end = sec->addr + sec->size;
  uint64_t addr = sec->addr;
  bool after_yield = false;
  while (addr < end) {
    uint64_t stop = next_func_start(e, addr, end);
    after_yield = false; /* a function start: no call of its own yet */
    while (addr < stop) {
      const uint8_t *code = sec->bytes + (addr - sec->addr);
      size_t left = (size_t)(stop - addr);
      uint64_t a = addr;
      if (!cs_disasm_iter(cs, &code, &left, &a, insn)) {
        addr++; /* not an instruction (data, or cut by the next symbol) */
        continue;
      }
      addr = a;
      check_insn(e, insn, &after_yield, out);
    }
  }
}

void audit_scan(struct audit_elf *e, bool is_program, struct audit_findings *out) {
  csh cs;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
    fprintf(stderr, "simaudit: capstone cannot open an x86-64 disassembler\n");
    exit(3);
  }
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
  cs_insn *insn = cs_malloc(cs);
  if (insn == NULL) abort();
  int first = out->n;
  if (is_program) {
    bool runtime = false;
    for (int i = 0; i < e->n_needed; i++)
      if (strncmp(e->needed[i], "libdetsim_rt.so", 15) == 0) runtime = true;
    if (!runtime) audit_add(out, "runtime", e->path, 0, NULL, "libdetsim_rt.so", WHY_RUNTIME);
  }
  map_plt(cs, e, insn);
  for (int s = 0; s < e->n_sections; s++)
    if (!e->sections[s].plt) sweep(cs, e, &e->sections[s], insn, out);
  /* An uncovered function reached other than by a direct call (its address
   * taken, a call through a register) is still an escape: named without a
   * call site. */
  for (int i = 0; i < e->n_imports; i++) {
    const char *name = judged_name(&e->imports[i]);
    char why[256];
    if (name == NULL || !audit_libc_escape(name, why, sizeof why)) continue;
    bool reported = false; /* a name can have two slots (JUMP_SLOT, GLOB_DAT) */
    for (int j = 0; j < e->n_imports; j++)
      if (strcmp(e->imports[j].name, e->imports[i].name) == 0 &&
          (e->imports[j].calls > 0 || j < i))
        reported = true;
    if (!reported) audit_add(out, "libc", e->path, 0, NULL, name, why);
  }
  cs_free(insn, 1);
  cs_close(&cs);
  if (!audit_symbolize(e->path, out->v + first, out->n - first)) return;
  bool located = false, any = false;
  for (int i = first; i < out->n; i++) {
    any |= out->v[i].addr != 0;
    located |= out->v[i].file != NULL;
  }
  if (any && !located)
    fprintf(stderr, "simaudit: note: %s has no line information for its findings (build it "
            "with -g for file:line)\n", e->path);
}
