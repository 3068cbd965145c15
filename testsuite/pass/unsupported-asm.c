// Inline asm that escapes the simulation is a warning naming what it uses:
// raw system calls, time-stamp counters, hardware randomness, atomics.
// Words that merely contain a mnemonic (clock, lockstep, xchg_count) are
// not.  The intrinsics behind __rdtsc(), __rdtscp(), rdrand/rdseed and
// __builtin_readcyclecounter() are warned about too.
//
// RUN: %clang -fplugin=%plugin -mrdrnd -mrdseed -O1 -g -c %s -o %t.o 2> %t.err
// RUN: FileCheck %s --input-file=%t.err --implicit-check-not="not simulated"
// REQUIRES: x86_64
#include <x86intrin.h>

unsigned long long asm_cases(unsigned long long t) {
  unsigned lo, hi, aux;
  int x = 0, y = 1;
  // CHECK: unsupported-asm.c:[[@LINE+1]]:3: warning: inline asm using 'rdtsc' is not simulated by detsim: it reads the real time-stamp counter unless the run traps it (DETSIM_OPTIONS trap_tsc, on by default){{$}}
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  // CHECK: unsupported-asm.c:[[@LINE+1]]:3: warning: inline asm using 'rdtscp' is not simulated by detsim: it reads the real time-stamp counter unless the run traps it (DETSIM_OPTIONS trap_tsc, on by default){{$}}
  __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
  // CHECK: unsupported-asm.c:[[@LINE+1]]:3: warning: inline asm using 'syscall' is not simulated by detsim: a raw system call bypasses every model (futex, clock, getrandom) unless the run traps it (DETSIM_OPTIONS trap_syscalls, on in a world){{$}}
  __asm__ volatile("syscall" : "+a"(t) : : "rcx", "r11", "memory");
  // CHECK: unsupported-asm.c:[[@LINE+1]]:3: warning: inline asm using 'int $0x80' is not simulated by detsim: a raw system call bypasses every model (futex, clock, getrandom) unless the run traps it (DETSIM_OPTIONS trap_syscalls, on in a world){{$}}
  __asm__ volatile("int $0x80" : "+a"(t) : : "memory");
  // CHECK: unsupported-asm.c:[[@LINE+1]]:3: warning: inline asm using 'sysenter' is not simulated by detsim: a raw system call bypasses every model (futex, clock, getrandom) unless the run traps it (DETSIM_OPTIONS trap_syscalls, on in a world){{$}}
  __asm__ volatile("sysenter" ::: "memory");
  // CHECK: unsupported-asm.c:[[@LINE+1]]:3: warning: inline asm using 'lock', 'cmpxchg' is not simulated by detsim: an atomic in asm gets no yield point, so no other thread can run between its steps{{$}}
  __asm__ volatile("lock; cmpxchgl %2, %1" : "+a"(x), "+m"(y) : "r"(2));
  // CHECK: unsupported-asm.c:[[@LINE+1]]:3: warning: inline asm using 'xchg' is not simulated by detsim: an atomic in asm gets no yield point, so no other thread can run between its steps{{$}}
  __asm__ volatile("xchgq %0, %1" : "+r"(t), "+m"(y));
  // CHECK: unsupported-asm.c:[[@LINE+1]]:3: warning: inline asm using 'lock', 'cmpxchg16b' is not simulated by detsim: an atomic in asm gets no yield point, so no other thread can run between its steps{{$}}
  __asm__ volatile("lock cmpxchg16b %0" : "+m"(y) : : "rax", "rdx", "rbx", "rcx");
  // CHECK: unsupported-asm.c:[[@LINE+1]]:3: warning: inline asm using 'rdrand' is not simulated by detsim: it reads hardware randomness, not the seed's random stream{{$}}
  __asm__ volatile("rdrandl %0" : "=r"(lo));
  // Several kinds in one statement: one warning, every reason.
  // CHECK: unsupported-asm.c:[[@LINE+1]]:3: warning: inline asm using 'rdtsc', 'lock' is not simulated by detsim: it reads the real time-stamp counter unless the run traps it (DETSIM_OPTIONS trap_tsc, on by default); an atomic in asm gets no yield point, so no other thread can run between its steps{{$}}
  __asm__ volatile("rdtsc\n\tlock; incl %2" : "=a"(lo), "=d"(hi), "+m"(y));
  // Not warned: no mnemonic, only words containing one.
  __asm__ volatile("mov %0, %0 # clock lockstep xchg_count" : "+r"(t));
  __asm__ volatile("" ::: "memory");
  return t + lo + hi + aux + (unsigned)x + (unsigned)y;
}

unsigned long long intrinsic_cases(void) {
  unsigned aux, r32;
  unsigned long long r64;
  // CHECK: unsupported-asm.c:[[@LINE+1]]:26: warning: intrinsic 'llvm.x86.rdtsc' is not simulated by detsim: it reads the real time-stamp counter unless the run traps it (DETSIM_OPTIONS trap_tsc, on by default){{$}}
  unsigned long long t = __builtin_ia32_rdtsc();
  // CHECK: unsupported-asm.c:[[@LINE+1]]:8: warning: intrinsic 'llvm.x86.rdtscp' is not simulated by detsim: it reads the real time-stamp counter unless the run traps it (DETSIM_OPTIONS trap_tsc, on by default){{$}}
  t += __rdtscp(&aux);
  // CHECK: unsupported-asm.c:[[@LINE+1]]:8: warning: intrinsic 'llvm.readcyclecounter' is not simulated by detsim: it reads the real time-stamp counter unless the run traps it (DETSIM_OPTIONS trap_tsc, on by default){{$}}
  t += __builtin_readcyclecounter();
  // CHECK: unsupported-asm.c:[[@LINE+1]]:8: warning: intrinsic 'llvm.x86.rdrand.32' is not simulated by detsim: it reads hardware randomness, not the seed's random stream{{$}}
  t += _rdrand32_step(&r32);
  // CHECK: unsupported-asm.c:[[@LINE+1]]:8: warning: intrinsic 'llvm.x86.rdseed.64' is not simulated by detsim: it reads hardware randomness, not the seed's random stream{{$}}
  t += _rdseed64_step(&r64);
  return t + aux + r32 + r64;
}
