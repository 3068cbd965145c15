/* Work counting: virtual time for the instructions a thread runs between
 * yield points, so that a thread busy computing advances the clock as it
 * would advance real time (runtime/time/time.h prices them).
 *
 * Every instrumented function adds, before each call and before each
 * terminator, the number of instructions run since the previous such point
 * to the global counter __detsim_work (pass_abi.h); the runtime reads it at
 * each event.  It runs at the start of the pipeline, on the IR as clang
 * generated it, so the count is a function of the source alone: the
 * optimiser may then merge or hoist the additions (the sum at every call is
 * what it was), but a change elsewhere in the function (a DETSIM_VERIFY
 * check, whose own work the runtime takes back) moves no count.  The
 * counter is thread-local: the optimiser keeps it in a register across
 * atomics, where yield points (inserted after optimisation) may switch
 * threads, so a shared counter would lose other threads' work.  The store
 * is volatile: a loop that only adds to the counter (a spin on plain
 * memory) must stay the endless loop it is natively, where the optimiser
 * would promote a plain counter to a register and then delete the loop as
 * one that must progress.
 *
 * Not counted: PHIs, allocas, the intrinsics that generate no code (debug
 * info, lifetime markers, assumptions), and the calls around a verify check.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/pass_abi.h"
#include "detsim_pass.h"

#define WORK_COUNTED_MD "detsim.work_counted"

static int is_free_intrinsic(LLVMValueRef inst) {
  if (LLVMGetInstructionOpcode(inst) != LLVMCall)
    return 0;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  if (callee == NULL || LLVMIsAFunction(callee) == NULL || LLVMGetIntrinsicID(callee) == 0)
    return 0;
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  static const char *const free_prefixes[] = {"llvm.dbg.", "llvm.lifetime.", "llvm.assume",
                                              "llvm.experimental.noalias", "llvm.pseudoprobe",
                                              "llvm.var.annotation"};
  for (size_t i = 0; i < sizeof free_prefixes / sizeof free_prefixes[0]; i++) {
    size_t n = strlen(free_prefixes[i]);
    if (len >= n && strncmp(name, free_prefixes[i], n) == 0)
      return 1;
  }
  return 0;
}

/* The calls around a DETSIM_VERIFY check (pass_abi.h): a build without the
 * check has no such call, and whatever follows the last one counts outside
 * the check. */
static int is_verify_call(LLVMValueRef inst) {
  if (LLVMGetInstructionOpcode(inst) != LLVMCall)
    return 0;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  if (callee == NULL || LLVMIsAFunction(callee) == NULL)
    return 0;
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  static const char prefix[] = "__detsim_verify_";
  return len >= sizeof prefix - 1 && strncmp(name, prefix, sizeof prefix - 1) == 0;
}

static int is_counted(LLVMValueRef inst) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMPHI:
  case LLVMAlloca:
    return 0;
  default:
    return !is_free_intrinsic(inst) && !is_verify_call(inst);
  }
}

/* A point the count is flushed before: a call (the callee may be a yield
 * point that reads the counter) or the block's end. */
static int is_flush_point(LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op == LLVMCall)
    return !is_free_intrinsic(inst);
  return op == LLVMInvoke || op == LLVMCallBr || LLVMIsATerminatorInst(inst) != NULL;
}

/* Nothing may stand before these in their block, or between a musttail
 * call and its return. */
static int is_untouchable(LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  return op == LLVMCatchSwitch || op == LLVMCatchPad || op == LLVMCleanupPad || op == LLVMLandingPad;
}

static int is_musttail(LLVMValueRef inst) {
  return LLVMGetInstructionOpcode(inst) == LLVMCall && LLVMGetTailCallKind(inst) == LLVMTailCallKindMustTail;
}

struct work_state {
  LLVMBuilderRef b;
  LLVMTypeRef i64;
  LLVMValueRef counter;
};

static void add_before(struct work_state *w, LLVMValueRef inst, unsigned long long n) {
  LLVMPositionBuilderBefore(w->b, inst);
  LLVMValueRef old = LLVMBuildLoad2(w->b, w->i64, w->counter, "");
  LLVMValueRef sum = LLVMBuildAdd(w->b, old, LLVMConstInt(w->i64, n, 0), "");
  LLVMSetVolatile(LLVMBuildStore(w->b, sum, w->counter), 1);
}

static void count_block(struct work_state *w, LLVMBasicBlockRef bb) {
  unsigned long long n = 0;
  for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst != NULL; inst = LLVMGetNextInstruction(inst)) {
    if (is_counted(inst)) n++;
    if (is_untouchable(inst)) continue;
    if (is_musttail(inst)) {
      /* Its return follows at once: count that too, here. */
      add_before(w, inst, n + 1);
      return;
    }
    if (is_flush_point(inst) && n > 0) {
      add_before(w, inst, n);
      n = 0;
    }
  }
}

static int is_naked(LLVMValueRef fn) {
  unsigned kind = LLVMGetEnumAttributeKindForName("naked", 5);
  return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind) != NULL;
}

int detsim__count_work(LLVMModuleRef m) {
  /* detsim-cc --no-count-work: time advances by the events' costs alone. */
  const char *off = getenv(DETSIM_COUNT_WORK_ENV);
  if (off != NULL && strcmp(off, "0") == 0)
    return 0;
  if (LLVMGetNamedMetadata(m, WORK_COUNTED_MD, sizeof WORK_COUNTED_MD - 1) != NULL)
    return 0;
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  struct work_state w = {LLVMCreateBuilderInContext(ctx), LLVMInt64TypeInContext(ctx), NULL};
  w.counter = LLVMGetNamedGlobal(m, DETSIM_WORK_COUNTER);
  if (w.counter == NULL) {
    w.counter = LLVMAddGlobal(m, w.i64, DETSIM_WORK_COUNTER);
    LLVMSetLinkage(w.counter, LLVMExternalLinkage);
    /* The runtime is loaded with the program: its TLS is in the static
     * block, and initial-exec is one %fs-relative access, in a shared
     * library built with detsim-cc too. */
    LLVMSetThreadLocal(w.counter, 1);
    LLVMSetThreadLocalMode(w.counter, LLVMInitialExecTLSModel);
  }
  int changed = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn != NULL; fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn) || is_naked(fn)) continue;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb != NULL; bb = LLVMGetNextBasicBlock(bb)) {
      count_block(&w, bb);
      changed = 1;
    }
  }
  LLVMAddNamedMetadataOperand(m, WORK_COUNTED_MD,
                              LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, NULL, 0)));
  LLVMDisposeBuilder(w.b);
  return changed;
}
