// Work counting (passes/work.c): the counter grows with what the program
// runs, and the count is a function of the source: -O1 to -O3 give the same
// total, which only counting the IR as clang generated it can do (-O0's
// code generation differs by a few instructions).  A
// loop that runs twice as often counts about twice as much.  The counter's
// store is volatile and gets no yield point.
//
// RUN: %clang -c %inputs/work_counter.c -o %t.stub.o
// RUN: env DETSIM_COUNT_WORK=1 %clang -fplugin=%plugin -O0 -c %s -o %t.O0.o
// RUN: %clang %t.O0.o %t.stub.o -o %t.O0
// RUN: %t.O0 1000 > %t.O0.out
// RUN: env DETSIM_COUNT_WORK=1 %clang -fplugin=%plugin -O2 -c %s -o %t.O2.o
// RUN: %clang %t.O2.o %t.stub.o -o %t.O2
// RUN: %t.O2 1000 > %t.O2.out
// RUN: env DETSIM_COUNT_WORK=1 %clang -fplugin=%plugin -O3 -c %s -o %t.O3.o
// RUN: %clang %t.O3.o %t.stub.o -o %t.O3
// RUN: %t.O3 1000 > %t.O3.out
// RUN: env DETSIM_COUNT_WORK=1 %clang -fplugin=%plugin -O1 -c %s -o %t.O1.o
// RUN: %clang %t.O1.o %t.stub.o -o %t.O1
// RUN: %t.O1 1000 > %t.O1.out
// RUN: cmp %t.O1.out %t.O2.out
// RUN: cmp %t.O1.out %t.O3.out
// RUN: FileCheck %s --check-prefix=COUNT --input-file=%t.O0.out
// RUN: env DETSIM_COUNT_WORK=1 %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=OFF
//
// COUNT: ratio=20
// COUNT: work={{[1-9][0-9]{4,}$}}
// IR-LABEL: @main(
// IR: store volatile i64 {{.*}}, ptr @__detsim_work
// IR-NOT: call void @__detsim_yield_access(ptr @__detsim_work
// IR: !detsim.work_counted
// OFF-NOT: __detsim_work
#include <stdio.h>
#include <stdlib.h>

static unsigned long mix(unsigned long x, long n) {
  for (long i = 0; i < n; i++) {
    x = x * 6364136223846793005ul + 1442695040888963407ul;
    if (x & 1) x ^= x >> 7;
  }
  return x;
}

extern __thread unsigned long __detsim_work;
unsigned long sink;

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 10;
  unsigned long w0 = __detsim_work;
  sink += mix(1, n);
  unsigned long w1 = __detsim_work;
  sink += mix(2, 2 * n);
  unsigned long w2 = __detsim_work;
  printf("ratio=%lu\n", ((w2 - w1) * 10 + (w1 - w0) / 2) / (w1 - w0));
  return 0;
}
