// C++ shim around the C pass: pass-manager registration and diagnostics.
//
// The pass runs at the OptimizerLast extension point, which every clang
// pipeline invokes: -O0, -O1..-O3, and the -flto / -flto=thin pre-link
// pipelines (so the bitcode handed to the linker is already instrumented and
// carries the detsim.instrumented marker).  Running last means the optimiser
// has finished inlining and folding: each remaining atomic gets exactly one
// yield point and no later pass moves or merges the inserted calls.
//
// `opt -load-pass-plugin=libdetsim.so` cannot load this library: it also
// holds the clang frontend plugin, whose symbols only clang provides.  Tests
// of IR inputs use `clang -fpass-plugin=libdetsim.so -x ir` instead.
#include "pass_plugin.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

#include "detsim_pass.h"

namespace {

struct DetsimPass : llvm::PassInfoMixin<DetsimPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    if (detsim__instrument_module(llvm::wrap(&M)) == 0)
      return llvm::PreservedAnalyses::all();
    return llvm::PreservedAnalyses::none();
  }
  // Instrumentation is not an optimisation: it must run at -O0 and on
  // optnone functions.
  static bool isRequired() { return true; }
};

// Work counting runs first, on the IR as clang generated it (work.c).
struct DetsimWorkPass : llvm::PassInfoMixin<DetsimWorkPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    if (detsim__count_work(llvm::wrap(&M)) == 0)
      return llvm::PreservedAnalyses::all();
    return llvm::PreservedAnalyses::none();
  }
  static bool isRequired() { return true; }
};

} // namespace

// DiagnosticInfoUnsupported is the one backend diagnostic clang prints with
// the instruction's source location (or its function's, without -g) and the
// bare message; a warning does not stop the build unless -Werror says so.
extern "C" void detsim__warn(LLVMValueRef Inst, const char *Message) {
  auto *I = llvm::unwrap<llvm::Instruction>(Inst);
  const llvm::Function &F = *I->getFunction();
  F.getContext().diagnose(llvm::DiagnosticInfoUnsupported(
      F, Message, I->getDebugLoc(), llvm::DS_Warning));
}

void detsim::registerPassBuilderCallbacks(llvm::PassBuilder &PB) {
  PB.registerPipelineStartEPCallback(
      [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
        MPM.addPass(DetsimWorkPass());
      });
  PB.registerOptimizerLastEPCallback(
      [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
        MPM.addPass(DetsimPass());
      });
}

// The entry point of -fpass-plugin=; exported although the library builds
// with hidden visibility.
extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ATTRIBUTE_VISIBILITY_DEFAULT
    ::llvm::PassPluginLibraryInfo
    llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "detsim", "0.1",
          detsim::registerPassBuilderCallbacks};
}
