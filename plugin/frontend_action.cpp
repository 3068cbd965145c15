// The clang frontend plugin "detsim": what plain `-fplugin=libdetsim.so`
// does.
//
// It runs before the main action (AddBeforeMainAction), so loading the
// plugin is all a build needs; it adds no AST work.  It
//   - predefines __DETSIM__=1, and __DETSIM_VERIFY__=1 with
//     -fplugin-arg-detsim-verify (invisible under -E: the preprocessor-only
//     actions create no AST consumer, so detsim-cc passes -D itself);
//   - hands the IR pass to clang's pass builder (CodeGenOptions::
//     PassBuilderCallbacks), so it runs in the pipeline clang builds;
//   - refuses, as compile errors, an unknown plugin argument and
//     -Xclang -disable-llvm-passes (no pipeline: the object would be left
//     uninstrumented and link into a simulation that silently lies).
//     One exception: the bitcode step of -save-temps (-emit-llvm-bc with
//     -disable-llvm-passes) when this library is also loaded as
//     -fpass-plugin=, as detsim-cc does: the driver hands that flag to the
//     step that compiles the bitcode, and the pass runs there.
#include <dlfcn.h>

#include <memory>
#include <string>
#include <vector>

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/FileSystem.h"

#include "pass_plugin.h"

namespace {

// Whether -fpass-plugin= names this very library.
bool loadedAsPassPlugin(const clang::CodeGenOptions &CG) {
  Dl_info Info;
  if (dladdr(reinterpret_cast<void *>(&loadedAsPassPlugin), &Info) == 0 ||
      Info.dli_fname == nullptr)
    return false;
  for (const std::string &Path : CG.PassPlugins) {
    if (llvm::sys::fs::equivalent(Path, Info.dli_fname))
      return true;
  }
  return false;
}

class DetsimAction : public clang::PluginASTAction {
  bool Verify = false;

protected:
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, llvm::StringRef) override {
    clang::Preprocessor &PP = CI.getPreprocessor();
    std::string Defines = "#define __DETSIM__ 1\n";
    if (Verify)
      Defines += "#define __DETSIM_VERIFY__ 1\n";
    PP.setPredefines(PP.getPredefines() + Defines);

    clang::CodeGenOptions &CG = CI.getCodeGenOpts();
    bool LaterStepInstruments =
        CI.getFrontendOpts().ProgramAction == clang::frontend::EmitBC &&
        loadedAsPassPlugin(CG);
    if (CG.DisableLLVMPasses && !LaterStepInstruments) {
      clang::DiagnosticsEngine &D = CI.getDiagnostics();
      D.Report(D.getCustomDiagID(
          clang::DiagnosticsEngine::Error,
          "detsim: -disable-llvm-passes runs no LLVM pass, so this file "
          "would be left uninstrumented; drop -disable-llvm-passes or "
          "build without the detsim plugin"));
    } else if (!CG.DisableLLVMPasses) {
      CG.PassBuilderCallbacks.push_back(detsim::registerPassBuilderCallbacks);
    }
    return std::make_unique<clang::ASTConsumer>();
  }

  bool ParseArgs(const clang::CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    bool Ok = true;
    for (const std::string &Arg : Args) {
      if (Arg == "verify") {
        Verify = true;
        continue;
      }
      clang::DiagnosticsEngine &D = CI.getDiagnostics();
      D.Report(D.getCustomDiagID(
          clang::DiagnosticsEngine::Error,
          "detsim: unknown plugin argument '%0' (the only one is "
          "-fplugin-arg-detsim-verify)"))
          << Arg;
      Ok = false;
    }
    return Ok;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static clang::FrontendPluginRegistry::Add<DetsimAction>
    Registration("detsim", "deterministic simulation: rewrite pthread, "
                           "clock, sleep and random calls into the detsim "
                           "runtime and add yield points before atomics");
