// Calls the simulation cannot model are compile-time warnings with the
// table's note, at file:line:col with -g (one per source call site, even
// when inlining copies it), and naming the enclosing function without -g.
// The calls themselves stay.  Warnings do not fail the build, and -Werror
// makes them errors as for any warning.
//
// RUN: %clang -fplugin=%plugin -O2 -g -S -emit-llvm %s -o %t.ll 2> %t.g.err
// RUN: FileCheck %s --check-prefix=G --input-file=%t.g.err --implicit-check-not="not simulated"
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.ll
// RUN: %clang -fplugin=%plugin -O0 -c %s -o %t.o 2> %t.nog.err
// RUN: FileCheck %s --check-prefix=NOG --input-file=%t.nog.err --implicit-check-not="not simulated"
// RUN: not %clang -fplugin=%plugin -O0 -Werror -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=WERROR
// A build without the plugin says nothing.
// RUN: %clang -O0 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=PLAIN --allow-empty
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int spawn(void) {
  return shm_open("/x", 0, 0) >= 0;
}

int twice(void) {
  return spawn() + spawn();
}

// syscall() is no longer here: the pass rewrites it (rewrite-syscall.c),
// and the runtime simulates the call by its number.


void stop(pthread_t t) {
  pthread_cancel(t);
}

// G: unsupported-calls.c:23:10: warning: call to 'shm_open' is not simulated by detsim: POSIX shared memory objects are not simulated: a real /dev/shm file, outside the run's world{{$}}
// IR: call {{.*}} @shm_open(
// pthread_cancel is simulated now: rewritten, and no warning.
// IR: call i32 @__detsim_pthread_cancel(

// NOG-DAG: warning: call to 'shm_open' is not simulated by detsim: POSIX shared memory objects are not simulated: a real /dev/shm file, outside the run's world (in function 'spawn')

// WERROR: error: call to 'shm_open' is not simulated by detsim
// PLAIN-NOT: detsim
