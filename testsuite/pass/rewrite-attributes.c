// The renamed declaration keeps its type, parameter attributes and
// noreturn, but loses the promises the runtime does not keep: glibc
// declares pthread_self __attribute__((const)), i.e. memory(none), which
// would let an LTO link merge or drop calls into the runtime.
//
// RUN: %clang -fplugin=%plugin -O0 -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %clang -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=PLAIN
#include <pthread.h>

unsigned long self(void) { return (unsigned long)pthread_self(); }
void leave(void) { pthread_exit(0); }

// Without the plugin the promise is there (else this test checks nothing).
// PLAIN: declare i64 @pthread_self() [[SELF:#[0-9]+]]
// PLAIN: attributes [[SELF]] = { {{.*}}memory(none)

// CHECK: call i64 @__detsim_pthread_self() [[SELFCALL:#[0-9]+]]
// CHECK: declare i64 @__detsim_pthread_self() [[SELFDECL:#[0-9]+]]
// CHECK: call void @__detsim_pthread_exit(ptr noundef null) [[EXITCALL:#[0-9]+]]
// CHECK: declare void @__detsim_pthread_exit(ptr noundef) [[EXITDECL:#[0-9]+]]
// CHECK-NOT: attributes [[SELFDECL]] = {{.*}}memory
// CHECK: attributes [[SELFDECL]] = { nounwind
// CHECK-NOT: attributes [[SELFDECL]] = {{.*}}memory
// CHECK-NOT: attributes [[SELFDECL]] = {{.*}}willreturn
// CHECK-DAG: attributes [[EXITDECL]] = { noreturn
// CHECK-DAG: attributes [[SELFCALL]] = { nounwind }
// CHECK-DAG: attributes [[EXITCALL]] = { noreturn }
