// The frontend plugin predefines __DETSIM__=1, and __DETSIM_VERIFY__=1 only
// with -fplugin-arg-detsim-verify; a build without the plugin has neither.
//
// RUN: %clang -fplugin=%plugin -S -emit-llvm %s -o - | FileCheck %s --check-prefix=SIM
// RUN: %clang -fplugin=%plugin -fplugin-arg-detsim-verify -S -emit-llvm %s -o - | FileCheck %s --check-prefix=VERIFY
// RUN: %clang -S -emit-llvm %s -o - | FileCheck %s --check-prefix=PLAIN
// Source on standard input with -x c, and C++.
// RUN: %clang -fplugin=%plugin -fplugin-arg-detsim-verify -x c -S -emit-llvm - -o - < %s | FileCheck %s --check-prefix=VERIFY
// RUN: %clangxx -fplugin=%plugin -fplugin-arg-detsim-verify -x c++ -S -emit-llvm %s -o - | FileCheck %s --check-prefix=VERIFY

#ifdef __DETSIM__
int detsim_is = __DETSIM__;
#else
int detsim_is = 0;
#endif
#ifdef __DETSIM_VERIFY__
int detsim_verify_is = __DETSIM_VERIFY__;
#else
int detsim_verify_is = 0;
#endif

// SIM: @detsim_is = {{.*}}global i32 1
// SIM: @detsim_verify_is = {{.*}}global i32 0
// VERIFY: @detsim_is = {{.*}}global i32 1
// VERIFY: @detsim_verify_is = {{.*}}global i32 1
// PLAIN: @detsim_is = {{.*}}global i32 0
// PLAIN: @detsim_verify_is = {{.*}}global i32 0
