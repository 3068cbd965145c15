/* A simulation build with planted escapes, one per kind simaudit names.
 * Each escape's line carries a PLANT marker naming the kind; audit_test.py
 * reads the markers and requires simaudit to report exactly these, each in
 * its function at its file:line.  The program is never run. */
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdio.h>

int helper_count(void); /* helper_atomic.c, built without the plugin */

__attribute__((noinline)) long plant_syscall(void) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(39L) : "rcx", "r11", "memory"); /* PLANT syscall */
  return ret;
}

__attribute__((noinline)) uint64_t plant_rdtsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)); /* PLANT rdtsc */
  return (uint64_t)hi << 32 | lo;
}

__attribute__((noinline)) unsigned plant_cpuid(void) {
  unsigned a = 0, b, c = 0, d;
  __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d)); /* PLANT cpuid */
  return a ^ b ^ c ^ d;
}

static int counter;

__attribute__((noinline)) int plant_lock_xadd(void) {
  int v = 1;
  __asm__ volatile("lock xaddl %0, %1" : "+r"(v), "+m"(counter) : : "memory"); /* PLANT atomic */
  return v;
}

__attribute__((noinline)) void *plant_unsupported(void) {
  return (void *)(long)shm_open("/planted", 0, 0); /* PLANT libc shm_open */
}

int main(void) {
  printf("%ld %llu %u %d %p %d\n", plant_syscall(), (unsigned long long)plant_rdtsc(),
         plant_cpuid(), plant_lock_xadd(), plant_unsupported(), helper_count());
  return 0;
}
