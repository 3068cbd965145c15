// An unknown plugin argument is a compile error naming it, and so is
// -disable-llvm-passes, which would leave the object uninstrumented.
//
// RUN: not %clang -fplugin=%plugin -fplugin-arg-detsim-verfy -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: detsim: unknown plugin argument 'verfy' (the only one is -fplugin-arg-detsim-verify)
//
// RUN: not %clang -fplugin=%plugin -Xclang -disable-llvm-passes -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NOPASSES
// RUN: not %clang -fplugin=%plugin -O2 -Xclang -disable-llvm-passes -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=NOPASSES
// NOPASSES: error: detsim: -disable-llvm-passes runs no LLVM pass, so this file would be left uninstrumented
//
// The right argument compiles.
// RUN: %clang -fplugin=%plugin -fplugin-arg-detsim-verify -c %s -o %t.o
int x;
