/* The world's region (runtime/world_abi.h) mapped as the runtime maps it,
 * at DETSIM_WORLD_ADDR, in a plain build of each kind the project supports
 * (unsanitized, ASan, TSan, MSan: built with plain clang, so MemorySanitizer
 * too): the address is application memory to the sanitizer (its mmap
 * interceptor keeps a hint only there, and instrumented code may read and
 * write it), and free in a process of that kind. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "world_abi.h"

int main(void) {
  void *want = (void *)(uintptr_t)DETSIM_WORLD_ADDR;
  int fd = memfd_create("detsim-world", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)DETSIM_WORLD_BYTES) != 0) {
    perror("memfd");
    return 1;
  }
  void *p = mmap(want, DETSIM_WORLD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE,
                 fd, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    return 2;
  }
  if (p != want) {
    printf("mapped at %p, not at %p\n", p, want);
    return 3;
  }
  /* Instrumented stores and loads at both ends: the sanitizer's shadow for
   * them exists. */
  volatile uint64_t *first = p, *last = (volatile uint64_t *)((char *)p + DETSIM_WORLD_BYTES) - 1;
  *first = 0x1234;
  *last = 0x5678;
  if (*first != 0x1234 || *last != 0x5678) return 4;
  printf("world region mapped at %p\n", p);
  return 0;
}
