/* The pass over one module: the order of the steps and the marker.
 *
 * 1. Skip a module that already carries DETSIM_INSTRUMENTED_MD: the plugin
 *    may be loaded both as -fplugin= and -fpass-plugin=, and a ThinLTO
 *    backend sees modules instrumented before the link.
 * 2. Find the declarations the table knows (once, not per call).
 * 3. Walk every instruction in order: yield points (yield.c) and warnings
 *    (unsupported.c).  Inserted calls go before the current instruction, so
 *    the walk never visits them.
 * 4. Rename REWRITE declarations (rewrite.c) last, so that steps 2-3 see
 *    the names the program wrote.
 * 5. Mark the module.
 */
#include <stdlib.h>

#include "detsim_pass.h"
#include "runtime/pass_abi.h"
#include "pass_internal.h"

LLVMValueRef detsim__direct_callee(LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op != LLVMCall && op != LLVMInvoke && op != LLVMCallBr)
    return NULL;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  return callee != NULL && LLVMIsAFunction(callee) != NULL ? callee : NULL;
}

/* A declaration, or an available_externally body (a copy of a definition
 * that lives elsewhere, e.g. a glibc extern inline): calls to it are calls
 * to the library. */
static int is_external(LLVMValueRef fn) {
  return LLVMIsDeclaration(fn) ||
         LLVMGetLinkage(fn) == LLVMAvailableExternallyLinkage;
}

const struct detsim_fn *detsim__callee_info(const struct detsim_module *st,
                                            LLVMValueRef callee) {
  for (size_t i = 0; i < st->known_len; i++) {
    if (st->known[i].fn == callee)
      return st->known[i].info;
  }
  return NULL;
}

static void find_known(struct detsim_module *st) {
  size_t cap = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(st->m); fn != NULL;
       fn = LLVMGetNextFunction(fn)) {
    if (!is_external(fn) || LLVMGetIntrinsicID(fn) != 0)
      continue;
    size_t len = 0;
    const char *name = LLVMGetValueName2(fn, &len);
    const struct detsim_fn *info = detsim__table_find(name, len);
    if (info == NULL || info->cls == DETSIM_CLASS_PASSTHROUGH)
      continue;
    if (st->known_len == cap) {
      cap = cap == 0 ? 16 : cap * 2;
      struct detsim_known *grown = realloc(st->known, cap * sizeof *grown);
      if (grown == NULL)
        abort();
      st->known = grown;
    }
    st->known[st->known_len].fn = fn;
    st->known[st->known_len].info = info;
    st->known_len++;
  }
}

static int is_marked(LLVMModuleRef m) {
  return LLVMGetNamedMetadata(m, DETSIM_INSTRUMENTED_MD,
                              sizeof DETSIM_INSTRUMENTED_MD - 1) != NULL;
}

/* The marker carries the pass ABI version, for whoever reads the IR. */
static void mark(struct detsim_module *st) {
  LLVMMetadataRef version = LLVMValueAsMetadata(
      LLVMConstInt(st->i32_ty, DETSIM_PASS_ABI_VERSION, 0));
  LLVMMetadataRef node = LLVMMDNodeInContext2(st->ctx, &version, 1);
  LLVMAddNamedMetadataOperand(st->m, DETSIM_INSTRUMENTED_MD,
                              LLVMMetadataAsValue(st->ctx, node));
}

int detsim__instrument_module(LLVMModuleRef m) {
  if (is_marked(m))
    return 0;

  struct detsim_module st = {0};
  st.m = m;
  st.ctx = LLVMGetModuleContext(m);
  st.builder = LLVMCreateBuilderInContext(st.ctx);
  st.ptr_ty = LLVMPointerTypeInContext(st.ctx, 0);
  st.i32_ty = LLVMInt32TypeInContext(st.ctx);
  LLVMTypeRef params[2] = {st.ptr_ty, st.i32_ty};
  st.yield_ty = LLVMFunctionType(LLVMVoidTypeInContext(st.ctx), params, 2, 0);

  find_known(&st);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn != NULL;
       fn = LLVMGetNextFunction(fn)) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb != NULL;
         bb = LLVMGetNextBasicBlock(bb)) {
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst != NULL;
           inst = LLVMGetNextInstruction(inst)) {
        detsim__check_unsupported(&st, inst);
        detsim__yield_before(&st, inst);
      }
    }
  }
  detsim__rewrite_declarations(&st);
  mark(&st);

  detsim__free_warned(&st);
  free(st.known);
  LLVMDisposeBuilder(st.builder);
  return st.changed;
}
