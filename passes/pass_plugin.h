// The IR pass as the new pass manager sees it, for the frontend plugin.
//
// plugin/frontend_action.cpp hands registerPassBuilderCallbacks to clang
// through CodeGenOptions::PassBuilderCallbacks; llvmGetPassPluginInfo (for
// -fpass-plugin=) calls the same function, so both ways build one pipeline.
#ifndef DETSIM_PASS_PLUGIN_H
#define DETSIM_PASS_PLUGIN_H

namespace llvm {
class PassBuilder;
}

namespace detsim {
void registerPassBuilderCallbacks(llvm::PassBuilder &PB);
}

#endif
