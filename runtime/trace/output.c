/* The program's output as part of its history (see trace/trace.h).
 *
 * Rules:
 *  - An output event is recorded, never a yield point: a write to a real
 *    descriptor was not one before, and stdio makes it while holding the
 *    stream's (real) lock, which no other simulated thread may then wait on.
 *  - Only the baton holder records (detsim__self() != NULL), so the digest
 *    needs no lock.
 *  - What is hashed is the same in every process: a class for the
 *    descriptor (0, 1, 2, or 3 for any other: numbers of files depend on
 *    what the process inherited), the length and the bytes.  The fd number
 *    itself is the event's object: shown in traces, not hashed.
 */
#include "trace/trace.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/uio.h>

#include "net/net.h"
#include "sched/sched.h"
#include "sanitize/sanitize.h"

static uint64_t digest = 0x6f75747075742121ull; /* "output!!" */

uint64_t detsim__output_digest(void) { return digest; }

/* FNV-1a over the class, the length and the first n bytes of the iovecs. */
static uint64_t hash_write(int fd, const struct iovec *iov, int iovcnt, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  uint64_t head[2] = { fd >= 0 && fd <= 2 ? (uint64_t)fd : 3u, (uint64_t)n };
  const unsigned char *hp = (const unsigned char *)head;
  for (size_t i = 0; i < sizeof head; i++) h = (h ^ hp[i]) * 0x100000001b3ull;
  size_t left = n;
  for (int k = 0; k < iovcnt && left > 0; k++) {
    const unsigned char *p = iov[k].iov_base;
    size_t m = iov[k].iov_len < left ? iov[k].iov_len : left;
    for (size_t i = 0; i < m; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    left -= m;
  }
  return h;
}

void detsim__output_iov(int fd, const struct iovec *iov, int iovcnt, size_t n, uintptr_t pc) {
  if (n == 0 || !detsim__running() || detsim__internal()) return;
  detsim_thread *self = detsim__self();
  if (self == NULL || self->suppress) return;
  uint64_t h = hash_write(fd, iov, iovcnt, n);
  digest = (detsim__rotl64(digest, 29) ^ h) * 0x9e3779b97f4a7c15ull;
  if (pc == 0) pc = detsim__program_pc();
  detsim__event(DETSIM_EV_output, self, (const void *)(uintptr_t)fd, pc, (uint32_t)(h ^ (h >> 32)));
}

void detsim__output(int fd, const void *buf, size_t n, uintptr_t pc) {
  struct iovec one = { (void *)buf, n };
  detsim__output_iov(fd, &one, 1, n, pc);
}

/* ---- where the program called from ---- */

struct range {
  uintptr_t lo, hi;
};

struct find {
  uintptr_t addr;
  struct range r;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct find *f = arg;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD) continue;
    uintptr_t a = info->dlpi_addr + ph->p_vaddr;
    if (a < lo) lo = a;
    if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
  }
  if (f->addr < lo || f->addr >= hi) return 0;
  f->r.lo = lo;
  f->r.hi = hi;
  return 1;
}

/* The loaded object holding addr (its mapped range), found once. */
static struct range object_of(uintptr_t addr) {
  struct find f = { addr, { 0, 0 } };
  dl_iterate_phdr(find_object, &f);
  return f.r;
}

static struct range runtime_range, libc_range;
static bool ranges_known;

static void know_ranges(void) {
  if (ranges_known) return;
  runtime_range = object_of((uintptr_t)&detsim__output);
  libc_range = object_of((uintptr_t)&fputc); /* never intercepted: libc's own */
  ranges_known = true;
}

static bool in_range(const struct range *r, uintptr_t pc) { return pc >= r->lo && pc < r->hi; }

int detsim__pc_in_runtime(uintptr_t pc) {
  know_ranges();
  return in_range(&runtime_range, pc);
}

uintptr_t detsim__program_pc(void) {
  know_ranges();
  void *frames[DETSIM_BACKTRACE_FRAMES_MAX];
  /* libunwind's own calls are the runtime's, not the program's (and its
   * writes must not move the call site of an operation under way). */
  uintptr_t pc_before = net__pc;
  detsim__internal_begin();
  detsim__msan_uninstrumented_begin();
  int n = unw_backtrace(frames, DETSIM_BACKTRACE_FRAMES_MAX);
  detsim__msan_uninstrumented_end();
  detsim__internal_end();
  if (n > 0) detsim__msan_unpoison(frames, (size_t)n * sizeof frames[0]);
  net__pc = pc_before;
  for (int i = 0; i < n; i++) {
    uintptr_t pc = (uintptr_t)frames[i];
    /* A sanitizer's interceptor (fwrite's, a static runtime's in the
     * executable) is not the program's call site either. */
    if (!in_range(&runtime_range, pc) && !in_range(&libc_range, pc) && !detsim__from_sanitizer_pc(pc)) return pc;
  }
  return 0;
}
