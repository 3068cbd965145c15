/* System calls as bare instructions, outside libc: what inline asm, static
 * helper code and other language runtimes do.  Returns the kernel's
 * result (-errno on failure). */
#ifndef TRAP_RAW_ASM_H
#define TRAP_RAW_ASM_H

#include <stdint.h>

static inline long raw_syscall3(long nr, long a0, long a1, long a2) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a0), "S"(a1), "d"(a2) : "rcx", "r11", "memory");
  return ret;
}

static inline uint64_t raw_rdtsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}

static inline uint64_t raw_rdtscp(uint32_t *aux) {
  uint32_t lo, hi, c;
  __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(c));
  *aux = c;
  return (uint64_t)hi << 32 | lo;
}

#endif
