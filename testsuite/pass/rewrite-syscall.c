// syscall() is rewritten like any REWRITE function: the call goes to
// __detsim_syscall with its number and arguments, and the pass says nothing
// about it (the runtime simulates it by number).  A syscall instruction in
// inline asm is still a warning (unsupported-asm.c).
//
// RUN: %clang -fplugin=%plugin -O1 -g -S -emit-llvm %s -o %t.ll 2> %t.err
// RUN: FileCheck %s --input-file=%t.ll
// RUN: FileCheck %s --check-prefix=ERR --allow-empty --input-file=%t.err
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>

// CHECK-LABEL: @tid(
long tid(void) {
  // CHECK: call i64 (i64, ...) @__detsim_syscall(i64 noundef 186)
  return syscall(SYS_gettid);
}

// CHECK-LABEL: @wake(
long wake(int *word) {
  // CHECK: call i64 (i64, ...) @__detsim_syscall(i64 noundef 202, ptr noundef %{{.*}}, i32 noundef 129, i32 noundef 1)
  return syscall(SYS_futex, word, 129, 1);
}
// CHECK-NOT: @syscall(

// ERR-NOT: not simulated
