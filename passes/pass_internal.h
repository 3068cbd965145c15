/* What the C parts of the pass share: the table as data, and the state of
 * one module being instrumented.
 *
 * Rules for this code: it never assumes an IR shape it did not check (LLVM-C
 * segfaults instead of diagnosing misuse), it keeps no static mutable state
 * (LTO backends may run the pass on several modules in parallel threads), and
 * it only ever touches what the table or pass_abi.h names.
 */
#ifndef DETSIM_PASS_INTERNAL_H
#define DETSIM_PASS_INTERNAL_H

#include <stddef.h>

#include <llvm-c/Core.h>

enum detsim_fn_class {
  DETSIM_CLASS_REWRITE,
  DETSIM_CLASS_YIELD,
  DETSIM_CLASS_PASSTHROUGH,
  DETSIM_CLASS_UNSUPPORTED,
};

/* One line of intercept_table.def. */
struct detsim_fn {
  const char *name;
  const char *canonical;
  enum detsim_fn_class cls;
  const char *note;
};

/* table.c: the line for symbol `name` (`len` bytes, not NUL-terminated), or
 * NULL when the table does not know it. */
const struct detsim_fn *detsim__table_find(const char *name, size_t len);

/* A function the module only declares and the table knows. */
struct detsim_known {
  LLVMValueRef fn;
  const struct detsim_fn *info;
};

/* A warning already given, so that copies of one call site (inlining,
 * unrolling) are reported once. */
struct detsim_warned {
  char *key;
};

struct detsim_module {
  LLVMModuleRef m;
  LLVMContextRef ctx;
  LLVMBuilderRef builder;
  LLVMTypeRef ptr_ty;     /* ptr (address space 0) */
  LLVMTypeRef i32_ty;
  LLVMTypeRef yield_ty;   /* void (ptr, i32) */
  LLVMValueRef yield_fn;  /* __detsim_yield_access, declared on first use */
  struct detsim_known *known;
  size_t known_len;
  struct detsim_warned *warned;
  size_t warned_len, warned_cap;
  int changed;
};

/* module.c: the table line for `callee` when it is a function this module
 * only declares (a definition is the program's own and is never touched),
 * else NULL. */
const struct detsim_fn *detsim__callee_info(const struct detsim_module *st,
                                            LLVMValueRef callee);

/* The called function of a call, invoke or callbr, or NULL for any other
 * instruction and for indirect calls. */
LLVMValueRef detsim__direct_callee(LLVMValueRef inst);

/* yield.c: puts a yield point before `inst` if it is an atomic or volatile
 * access or a libatomic call. */
void detsim__yield_before(struct detsim_module *st, LLVMValueRef inst);

/* unsupported.c: warns if `inst` calls an UNSUPPORTED function, runs inline
 * asm that escapes the simulation, or uses a hardware-counter intrinsic. */
void detsim__check_unsupported(struct detsim_module *st, LLVMValueRef inst);
void detsim__free_warned(struct detsim_module *st);

/* rewrite.c: renames every declaration classed REWRITE to __detsim_<name>. */
void detsim__rewrite_declarations(struct detsim_module *st);

#endif
