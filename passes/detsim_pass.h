/* The seam between the rewriting logic (C over LLVM-C) and its C++ shim.
 *
 * The pass itself is plain C: it walks a module through llvm-c/Core.h and
 * rewrites it as intercept_table.def and pass_abi.h say.  C++ is used only
 * where LLVM-C cannot reach: registering the pass with the pass builder
 * (pass_plugin.cpp) and raising a compiler diagnostic that clang prints with
 * the source location (detsim__warn below).  Everything declared here is
 * callable from both languages.
 */
#ifndef DETSIM_PASS_H
#define DETSIM_PASS_H

#include <llvm-c/Core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Instruments module `m` unless it already carries the DETSIM_INSTRUMENTED_MD
 * marker, then marks it.  Returns nonzero if any instruction or declaration
 * changed (the marker alone does not count). */
int detsim__instrument_module(LLVMModuleRef m);

/* Adds work counting to every function body of `m` (work.c), at the start
 * of the pipeline, unless it is already counted.  Nonzero if it changed. */
int detsim__count_work(LLVMModuleRef m);

/* Reports a compile-time warning about call instruction `inst`.  Clang
 * prints it at the instruction's debug location, or at its function when
 * the module has no debug info.  Implemented in C++ (pass_plugin.cpp). */
void detsim__warn(LLVMValueRef inst, const char *message);

#ifdef __cplusplus
}
#endif

#endif
