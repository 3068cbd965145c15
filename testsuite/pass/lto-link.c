// Full and thin LTO links with lld: the instrumented bitcode links against
// a stand-in runtime (Inputs/yield_counter.c) and every yield point and
// rename survives the post-link optimiser (exact counts).
//
// REQUIRES: lld
// RUN: %clang -c %inputs/yield_counter.c -o %t.stub.o
// RUN: %clang -fplugin=%plugin -flto -O2 -c %S/run-counts.c -Wno-atomic-alignment -o %t.full.o
// RUN: %clang -flto -O2 -fuse-ld=lld --ld-path=%lld %t.full.o %t.stub.o -latomic -o %t.full
// RUN: %t.full | FileCheck %S/run-counts.c
// RUN: %clang -fplugin=%plugin -flto=thin -O2 -c %S/run-counts.c -Wno-atomic-alignment -o %t.thin.o
// RUN: %clang -flto=thin -O2 -fuse-ld=lld --ld-path=%lld %t.thin.o %t.stub.o -latomic -o %t.thin
// RUN: %t.thin | FileCheck %S/run-counts.c
// RUN: %clang -fplugin=%plugin -flto -O0 -c %S/run-counts.c -Wno-atomic-alignment -o %t.full0.o
// RUN: %clang -flto -O0 -fuse-ld=lld --ld-path=%lld %t.full0.o %t.stub.o -latomic -o %t.full0
// RUN: %t.full0 | FileCheck %S/run-counts.c
