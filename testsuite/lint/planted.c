/* Planted escapes, one or more per detsim-lint check.  Each finding's line
 * carries a marker: PLANT <check> <warning|note> <token>, the token being
 * where the finding's column points; lint_test.py requires detsim-lint to
 * name exactly these, each at its file:line:col.  The program is never run. */
#include <cpuid.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

struct queue {
  int head, tail, done;
};

static int ready;
static int flag2;

void spin_on_global(void) {
  while (!ready) /* PLANT spin-wait warning while */
    ;
}

void spin_break_on_field(struct queue *q) {
  for (;;) { /* PLANT spin-wait warning for */
    if (q->done) break;
  }
}

void spin_do_while(void) {
  do { /* PLANT spin-wait warning do */
  } while (flag2 == 0);
}

void spin_with_pause(struct queue *q) {
  while (q->head == q->tail) _mm_pause(); /* PLANT spin-wait warning while */ /* PLANT raw-syscall warning _mm_pause */
}

static int queue_done(const struct queue *q) { return q->done; }

void spin_on_reader(struct queue *q) {
  while (!queue_done(q)) /* PLANT spin-wait warning while */
    ;
}

long asm_syscall(void) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(39L) : "rcx", "r11", "memory"); /* PLANT inline-asm warning __asm__ */
  return ret;
}

uint64_t asm_ticks(void) {
  uint32_t lo, hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)); /* PLANT inline-asm warning __asm__ */
  return (uint64_t)hi << 32 | lo;
}

int asm_lock_xadd(int *counter) {
  int v = 1;
  asm volatile("lock; xaddl %0, %1" : "+r"(v), "+m"(*counter) : : "memory"); /* PLANT inline-asm warning asm */
  return v;
}

void asm_cpu_relax(void) {
  asm volatile("rep; nop" ::: "memory"); /* PLANT inline-asm warning asm */
}

#define CPU_RELAX() __asm__ volatile("pause" ::: "memory")

unsigned asm_from_macros(void) {
  unsigned a, b, c, d;
  __cpuid(0, a, b, c, d); /* PLANT inline-asm warning __cpuid */
  CPU_RELAX(); /* PLANT inline-asm warning CPU_RELAX */
  __get_cpuid(1, &a, &b, &c, &d); /* PLANT raw-syscall warning __get_cpuid */
  return a ^ b ^ c ^ d;
}

unsigned asm_other(unsigned x) {
  __asm__("bswap %0" : "+r"(x)); /* PLANT inline-asm warning __asm__ */
  return x;
}

void seed_from_time(void) {
  srand((unsigned)time(NULL)); /* PLANT time-seed note srand */
}

void seed_from_gettimeofday(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  srandom((unsigned)(getpid() ^ tv.tv_usec)); /* PLANT time-seed note srandom */
}

void seed_from_rdtsc(void) {
  srand((unsigned)__rdtsc()); /* PLANT time-seed warning srand */ /* PLANT raw-syscall warning __rdtsc */
}

void seed_from_asm_wrapper(void) {
  srand48((long)asm_ticks()); /* PLANT time-seed warning srand48 */
}

static uint64_t rng_state;

void seed_from_address(void) {
  int local;
  rng_state = (uintptr_t)&local; /* PLANT time-seed note rng_state */
}

void seed_from_clock_var(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  unsigned long my_seed = (unsigned long)ts.tv_nsec; /* PLANT time-seed note my_seed */
  struct {
    unsigned long seed;
  } box;
  box.seed = my_seed; /* a copy: named where my_seed got it, not again */
  printf("%lu %lu\n", my_seed, box.seed);
}

long raw_clone(void) {
  return syscall(SYS_clone, 0, 0, 0, 0, 0); /* PLANT raw-syscall warning syscall */
}

long raw_io_uring(void) {
  return syscall(SYS_io_uring_setup, 8, NULL); /* PLANT raw-syscall note syscall */
}

long raw_unknown(void) {
  return syscall(999); /* PLANT raw-syscall warning syscall */
}

long raw_variable(long n) {
  return syscall(n); /* PLANT raw-syscall note syscall */
}

__attribute__((target("rdrnd"))) unsigned hw_random(void) {
  unsigned x = 0;
  _rdrand32_step(&x); /* PLANT raw-syscall warning _rdrand32_step */
  return x;
}

int drop_shared_memory(void) {
  return shm_unlink("/planted"); /* PLANT unsupported-call warning shm_unlink */
}

int shared_memory(void) {
  return shm_open("/planted", 0, 0); /* PLANT unsupported-call warning shm_open */
}

int (*unlinker(void))(const char *) {
  return shm_unlink; /* PLANT unsupported-call warning shm_unlink */
}
