// C++: std::atomic operations, std::mutex (pthread underneath, inlined from
// libstdc++'s headers) and calls inside try blocks (invokes) are
// instrumented like C.
//
// RUN: %clangxx -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clangxx -fplugin=%plugin -O0 -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --check-prefix=O0 --input-file=%t.O0.ll
// RUN: FileCheck %s --check-prefix=O0STORE --input-file=%t.O0.ll
#include <atomic>
#include <mutex>
#include <unistd.h>

std::atomic<int> counter;
std::mutex m;
void may_throw();

// CHECK-LABEL: @_Z4workv(
// O0-LABEL: @_Z4workv(
int work() {
  // CHECK: call void @__detsim_yield_access(ptr @counter, i32 3)
  // CHECK-NEXT: atomicrmw add ptr @counter, i32 1 seq_cst
  counter.fetch_add(1);
  {
    // CHECK: call {{.*}}i32 @__detsim_pthread_mutex_lock(ptr {{.*}}@m)
    // CHECK: call {{.*}}i32 @__detsim_pthread_mutex_unlock(ptr {{.*}}@m)
    std::lock_guard<std::mutex> g(m);
    counter.store(2, std::memory_order_release);
  }
  try {
    may_throw();
    // O0: invoke i32 @__detsim_usleep(i32 noundef 10)
    usleep(10);
  } catch (...) {
  }
  // CHECK: call void @__detsim_yield_access(ptr @counter, i32 1)
  // CHECK-NEXT: load atomic i32, ptr @counter seq_cst
  return counter.load();
}
// At -O0 std::atomic<int>::store is a function of its own.
// O0STORE: call void @__detsim_yield_access(ptr {{.*}}, i32 2)
// O0STORE-NEXT: store atomic i32
