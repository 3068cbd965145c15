/* A clean program for detsim-lint: near misses of every check, none of
 * which is an escape (lint_test.py requires no finding at all).  Each says
 * why it is fine under detsim. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int v_ready;     /* volatile: the pass yields at each access */
static atomic_int a_ready;       /* atomic: each load is a yield point */
static int plain_ready;          /* read through __atomic builtins only */
static int flag;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

struct node {
  struct node *next;
  int value;
};

#define DO_NOTHING() do { } while (0)

void waits(void) {
  while (!v_ready) /* a yield point per read */
    ;
  while (!atomic_load(&a_ready))
    ;
  while (!__atomic_load_n(&plain_ready, __ATOMIC_ACQUIRE))
    ;
  while (!flag) sched_yield(); /* a call: a yield point */
  pthread_mutex_lock(&lock);
  while (!flag) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  DO_NOTHING();
}

static int is_set(const int *p) { return *p; }
static int plus(int a, int b) { return a + b; }
static int flag_then_log(void) {
  printf("checked\n"); /* a call: a yield point */
  return flag;
}

int reader_loops(int *p, int k) {
  while (!is_set(p)) k++; /* the loop writes: the reader may read it */
  while (plus(k, 1) < 3) k++;
  while (!flag_then_log())
    ;
  return k;
}

int loops(const int *a, int n, const char *p, struct node *list) {
  int sum = 0, k = 0;
  for (int i = 0; i < n; i++) sum += a[i];
  for (int i = 0; i < n; i++)
    if (a[i] == 0) break;
  while (*p) p++;
  while (list->next != NULL) list = list->next;
  while (!flag && k < 10) k++; /* ends by itself */
  while (k > 0) {
    if (a[k] < 0) break;
    k--;
  }
  return sum + k + list->value;
}

/* Types and sizes run nothing: no unsupported function is used here. */
extern __typeof__(system) system;
__typeof__(&popen) never_set; /* stays NULL */
size_t pointer_sizes(void) { return sizeof(&system) + sizeof never_set + sizeof(__typeof__(&popen)); }

void barrier(void) {
  __asm__ volatile("" ::: "memory"); /* a compiler barrier: no instruction */
}

void seeds(void *arg) {
  srandom(1);
  unsigned seed = (unsigned)(long)arg; /* the program's own choice */
  printf("%d\n", rand_r(&seed));
  unsigned from_kernel;
  if (getrandom(&from_kernel, sizeof from_kernel, 0) == sizeof from_kernel) srand(from_kernel);
  int fd = open("/dev/urandom", O_RDONLY); /* the seed's stream under detsim */
  unsigned long from_file = 0;
  if (fd >= 0 && read(fd, &from_file, sizeof from_file) == sizeof from_file) srand48((long)from_file);
  if (fd >= 0) close(fd);
  struct node nodes[2] = {{NULL, 1}, {NULL, 2}};
  const struct node *pick = &nodes[1]; /* a pointer to read through, not an address seed */
  struct {
    unsigned seed;
  } cfg;
  cfg.seed = (unsigned)pick->value;
  printf("%u\n", cfg.seed);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* time, but no seed made of it */
  printf("%ld\n", (long)ts.tv_sec);
}

long simulated_syscalls(int *futex_word) {
  long tid = syscall(SYS_gettid);
  return tid + syscall(SYS_futex, futex_word, 1 /* FUTEX_WAKE */, 1, NULL, NULL, 0);
}

int main(void) {
  int a[3] = {1, 2, 0};
  struct node tail = {NULL, 4}, head = {&tail, 3};
  v_ready = 1;
  atomic_store(&a_ready, 1);
  __atomic_store_n(&plain_ready, 1, __ATOMIC_RELEASE);
  flag = 1;
  waits();
  barrier();
  seeds((void *)7L);
  int r = loops(a, 3, "ab", &head) + reader_loops(&flag, 0);
  printf("%d %ld %zu\n", r, simulated_syscalls(&flag), pointer_sizes());
  return 0;
}
