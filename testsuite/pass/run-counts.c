// Runs instrumented code against a stand-in runtime that counts the calls
// (Inputs/yield_counter.c): exact counts per kind, at -O0 to -O3, and
// through full and thin LTO links when lld-19 is there (lto-link.c).  A
// signal fence and plain accesses count nothing; the 32-byte atomic is one
// libatomic call.
//
// RUN: %clang -c %inputs/yield_counter.c -o %t.stub.o
// RUN: %clang -fplugin=%plugin -O0 -Wno-atomic-alignment -c %s -o %t.O0.o
// RUN: %clang %t.O0.o %t.stub.o -latomic -o %t.O0
// RUN: %t.O0 | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -Wno-atomic-alignment -c %s -o %t.O2.o
// RUN: %clang %t.O2.o %t.stub.o -latomic -o %t.O2
// RUN: %t.O2 | FileCheck %s
// RUN: %clang -fplugin=%plugin -O1 -g -Wno-atomic-alignment -c %s -o %t.O1.o
// RUN: %clang %t.O1.o %t.stub.o -latomic -o %t.O1
// RUN: %t.O1 | FileCheck %s
// RUN: %clang -fplugin=%plugin -O3 -Wno-atomic-alignment -c %s -o %t.O3.o
// RUN: %clang %t.O3.o %t.stub.o -latomic -o %t.O3
// RUN: %t.O3 | FileCheck %s
//
// CHECK: atomic_load=10 atomic_store=10 rmw=10 cmpxchg=1 fence=1 libatomic=1 volatile_load=10 volatile_store=10 sleep=1
#include <stdatomic.h>
#include <unistd.h>

_Atomic int a;
volatile int v;
int plain;
struct big { long x[4]; };
_Atomic struct big b;

int main(void) {
  for (int i = 0; i < 10; i++) {
    atomic_fetch_add(&a, 1);
    atomic_store(&a, atomic_load(&a) + 1);
    v = v + 1;
    plain += i;
  }
  int e = 0;
  atomic_compare_exchange_strong(&a, &e, 5);
  atomic_thread_fence(memory_order_seq_cst);
  atomic_signal_fence(memory_order_seq_cst);
  struct big x = atomic_load(&b);
  sleep(3);
  return (int)x.x[0] + (plain == 45 ? 0 : 1);
}
