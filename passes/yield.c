/* Yield points: a call to __detsim_yield_access(addr, kind) right before
 * every atomic instruction, volatile access and libatomic call.
 *
 * The access itself stays native.  Only one simulated thread runs at a time,
 * so an instruction between two yield points is atomic with respect to every
 * other thread; the yield point is where the scheduler may let another thread
 * run first.  Fences with syncscope("singlethread") (signal fences) order
 * nothing between threads and get no yield point.  The inserted call takes
 * the debug location of the access, so -g builds verify and the runtime's
 * backtraces name the access.
 */
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "runtime/pass_abi.h"
#include "pass_internal.h"

/* The address a libatomic call works on: argument 1 for the generic forms
 * (`__atomic_load(size, ptr, ret, order)`, whose name is their canonical
 * name), argument 0 for the sized ones (`__atomic_fetch_add_4(ptr, ...)`). */
static LLVMValueRef libatomic_address(LLVMValueRef call,
                                      const struct detsim_fn *info) {
  unsigned index = strcmp(info->name, info->canonical) == 0 ? 1 : 0;
  if (index >= LLVMGetNumArgOperands(call))
    return NULL;
  return LLVMGetOperand(call, index);
}

/* The access kind of `inst` (0: not an access that yields) and its address
 * (NULL: none, as for a fence). */
static unsigned access_kind(const struct detsim_module *st, LLVMValueRef inst,
                            LLVMValueRef *addr) {
  *addr = NULL;
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMLoad:
    *addr = LLVMGetOperand(inst, 0);
    if (LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic)
      return DETSIM_ACCESS_ATOMIC_LOAD;
    return LLVMGetVolatile(inst) ? DETSIM_ACCESS_VOLATILE_LOAD : 0;
  case LLVMStore:
    *addr = LLVMGetOperand(inst, 1);
    if (LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic)
      return DETSIM_ACCESS_ATOMIC_STORE;
    return LLVMGetVolatile(inst) ? DETSIM_ACCESS_VOLATILE_STORE : 0;
  case LLVMAtomicRMW:
    *addr = LLVMGetOperand(inst, 0);
    return DETSIM_ACCESS_ATOMIC_RMW;
  case LLVMAtomicCmpXchg:
    *addr = LLVMGetOperand(inst, 0);
    return DETSIM_ACCESS_ATOMIC_CMPXCHG;
  case LLVMFence:
    return LLVMIsAtomicSingleThread(inst) ? 0 : DETSIM_ACCESS_FENCE;
  case LLVMCall:
  case LLVMInvoke: {
    LLVMValueRef callee = detsim__direct_callee(inst);
    const struct detsim_fn *info =
        callee != NULL ? detsim__callee_info(st, callee) : NULL;
    if (info == NULL || info->cls != DETSIM_CLASS_YIELD)
      return 0;
    if (strcmp(info->canonical, "sigsetjmp") == 0) {
      *addr = LLVMGetNumArgOperands(inst) > 0 ? LLVMGetOperand(inst, 0) : NULL;
      return DETSIM_ACCESS_SETJMP;
    }
    *addr = libatomic_address(inst, info);
    return DETSIM_ACCESS_LIBATOMIC_CALL;
  }
  default:
    return 0;
  }
}

/* `addr` as a `ptr` in address space 0.  Another address space goes through
 * an integer: an addrspacecast from an x86 segment space (256, 257) is not
 * selectable, and the runtime only uses the value to name the location. */
static LLVMValueRef flat_address(struct detsim_module *st, LLVMValueRef addr) {
  if (addr == NULL)
    return LLVMConstPointerNull(st->ptr_ty);
  LLVMTypeRef ty = LLVMTypeOf(addr);
  if (LLVMGetTypeKind(ty) != LLVMPointerTypeKind)
    return LLVMConstPointerNull(st->ptr_ty);
  unsigned as = LLVMGetPointerAddressSpace(ty);
  if (as == 0)
    return addr;
  LLVMTypeRef int_ty = LLVMInt64TypeInContext(st->ctx);
  LLVMValueRef bits = LLVMBuildPtrToInt(st->builder, addr, int_ty, "");
  return LLVMBuildIntToPtr(st->builder, bits, st->ptr_ty, "");
}

static LLVMValueRef yield_function(struct detsim_module *st) {
  if (st->yield_fn == NULL) {
    st->yield_fn = LLVMGetNamedFunction(st->m, "__detsim_yield_access");
    if (st->yield_fn == NULL)
      st->yield_fn = LLVMAddFunction(st->m, "__detsim_yield_access",
                                     st->yield_ty);
  }
  return st->yield_fn;
}

void detsim__yield_before(struct detsim_module *st, LLVMValueRef inst) {
  LLVMValueRef addr = NULL;
  unsigned kind = access_kind(st, inst, &addr);
  if (kind == 0)
    return;
  /* The work counter's own volatile store (work.c) is bookkeeping. */
  if (addr != NULL && LLVMIsAGlobalVariable(addr) != NULL) {
    size_t len = 0;
    const char *name = LLVMGetValueName2(addr, &len);
    if (len == sizeof DETSIM_WORK_COUNTER - 1 && memcmp(name, DETSIM_WORK_COUNTER, len) == 0)
      return;
  }

  LLVMPositionBuilderBefore(st->builder, inst);
  LLVMSetCurrentDebugLocation2(st->builder, LLVMInstructionGetDebugLoc(inst));
  LLVMValueRef args[2] = {flat_address(st, addr),
                          LLVMConstInt(st->i32_ty, kind, 0)};
  LLVMBuildCall2(st->builder, st->yield_ty, yield_function(st), args, 2, "");
  st->changed = 1;
}
