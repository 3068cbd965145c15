/* A program's own SIGSEGV handler sees its own fault, with rdtsc trapping
 * in the same process: the handler makes the page writable and returns,
 * and the write is retried, as on Linux. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../raw_asm.h"

static char *page;
static long page_size;
static volatile int faults;
static volatile int addr_ok;

static void on_segv(int sig, siginfo_t *si, void *uctx) {
  (void)sig;
  (void)uctx;
  faults++;
  addr_ok = (char *)si->si_addr >= page && (char *)si->si_addr < page + page_size && si->si_code == SEGV_ACCERR;
  mprotect(page, (size_t)page_size, PROT_READ | PROT_WRITE);
}

int main(void) {
  page_size = sysconf(_SC_PAGESIZE);
  page = mmap(NULL, (size_t)page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);
  uint64_t t0 = raw_rdtsc();
  page[100] = 42;
  uint64_t t1 = raw_rdtsc();
  printf("faults=%d addr_ok=%d value=%d tsc_forward=%d\n", faults, addr_ok, page[100], t1 >= t0);
  return 0;
}
