/* What the run-time net costs per caught instruction: N getpid calls made
 * as a bare `syscall` instruction (caught by the trap_syscalls net:
 * SIGSYS, then the syscall-by-number dispatch), as syscall(SYS_getpid)
 * (the dispatch alone), N getuid calls through syscall() that reach the
 * kernel from libc's text (what the net lets through costs), or N rdtsc
 * (caught by PR_SET_TSC: SIGSEGV, then a virtual clock read).  Prints a
 * checksum so no loop can be dropped.
 *
 *   trap_costs raw|libc|kernel|rdtsc N
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long raw_getpid(void) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_getpid) : "rcx", "r11", "memory");
  return ret;
}

static uint64_t raw_rdtsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (uint64_t)hi << 32 | lo;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s raw|libc|kernel|rdtsc N\n", argv[0]);
    return 2;
  }
  long n = atol(argv[2]);
  uint64_t sum = 0;
  if (strcmp(argv[1], "raw") == 0)
    for (long i = 0; i < n; i++) sum += (uint64_t)raw_getpid();
  else if (strcmp(argv[1], "libc") == 0)
    for (long i = 0; i < n; i++) sum += (uint64_t)syscall(SYS_getpid);
  else if (strcmp(argv[1], "kernel") == 0)
    for (long i = 0; i < n; i++) sum += (uint64_t)syscall(SYS_getuid) & 1;
  else if (strcmp(argv[1], "rdtsc") == 0)
    for (long i = 0; i < n; i++) sum += raw_rdtsc() & 1;
  else
    return 2;
  printf("sum=%llu\n", (unsigned long long)sum);
  return 0;
}
