/* Bench 2b, the limit for a detsim switch: a native futex hand-off.
 *
 *   futex_pingpong N same|split
 *   futex_pingpong N procs K
 *
 * Two threads hand a baton back and forth N times each (2N hand-offs), the
 * way detsim's scheduler does: the holder stores the other's turn into a
 * futex word and wakes it with FUTEX_WAKE, then waits with FUTEX_WAIT until
 * the turn comes back.  `same` pins both threads to the CPU the program
 * starts on (what detsim does with pin_cpu=1); `split` pins them to two
 * different CPUs, for contrast.  `procs K`: K processes pinned to that CPU
 * pass the baton around a ring N times each (KN hand-offs), each waiting on
 * its own word in shared memory, the way a world's nodes hand it over
 * (bench/world.sh: the limit for a node hand-over, which also switches
 * address spaces; it costs more with more processes).  Built natively
 * (plain clang): raw futex calls are outside detsim's model.  Only the
 * baton holder increments the hand-off count, so it must come out exactly
 * 2N (KN): the program prints "handoffs=2N" and the scripts check it.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whose turn it is (0 or 1, the futex word) and the hand-offs counted:
 * process-shared memory in `procs` mode. */
static uint32_t turn; /* the futex word: whose turn it is, 0 or 1 */
static uint64_t handoffs;
static uint64_t n;
static int cpus[2];

/* `procs`: one word per process (a cache line each), in shared memory. */
#define PROCS_MAX 8
struct ring {
  uint32_t word[PROCS_MAX][16];
  uint64_t handoffs;
};

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("sched_setaffinity");
    exit(3);
  }
}

static void *player(void *arg) {
  uint32_t me = (uint32_t)(uintptr_t)arg;
  pin(cpus[me]);
  for (uint64_t i = 0; i < n; i++) {
    while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != me)
      syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, 1 - me, NULL, NULL, 0);
    handoffs++;
    __atomic_store_n(&turn, 1 - me, __ATOMIC_RELEASE);
    syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  }
  return NULL;
}

static void ring_player(struct ring *r, unsigned me, unsigned k) {
  uint32_t *mine = r->word[me], *next = r->word[(me + 1) % k];
  for (uint64_t i = 0; i < n; i++) {
    while (__atomic_load_n(mine, __ATOMIC_ACQUIRE) == 0) syscall(SYS_futex, mine, FUTEX_WAIT, 0, NULL, NULL, 0);
    __atomic_store_n(mine, 0, __ATOMIC_RELAXED);
    r->handoffs++;
    __atomic_store_n(next, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, next, FUTEX_WAKE, 1, NULL, NULL, 0);
  }
}

/* K processes (this one and K-1 children) on this CPU. */
static int play_in_processes(unsigned k) {
  struct ring *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (r == MAP_FAILED) {
    perror("mmap");
    return 3;
  }
  pin(sched_getcpu());
  r->word[0][0] = 1;
  for (unsigned me = 1; me < k; me++) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("fork");
      return 3;
    }
    if (pid == 0) {
      ring_player(r, me, k);
      _exit(0);
    }
  }
  ring_player(r, 0, k);
  int status, failed = 0;
  while (wait(&status) > 0) failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  printf("handoffs=%llu\n", (unsigned long long)r->handoffs);
  return failed ? 3 : r->handoffs == (uint64_t)k * n ? 0 : 1;
}

int main(int argc, char **argv) {
  bool procs = argc == 4 && strcmp(argv[2], "procs") == 0;
  unsigned k = procs ? (unsigned)atoi(argv[3]) : 2;
  if (!(procs && k >= 2 && k <= PROCS_MAX) && (argc != 3 || (strcmp(argv[2], "same") != 0 && strcmp(argv[2], "split") != 0))) {
    fprintf(stderr, "usage: futex_pingpong N same|split, or futex_pingpong N procs K (K = 2..%d)\n", PROCS_MAX);
    return 2;
  }
  n = strtoull(argv[1], NULL, 10);
  if (procs) return play_in_processes(k);
  if (strcmp(argv[2], "same") == 0) {
    cpus[0] = cpus[1] = sched_getcpu();
  } else {
    /* The first two CPUs this process may run on. */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 3;
    int k = 0;
    for (int c = 0; c < CPU_SETSIZE && k < 2; c++)
      if (CPU_ISSET(c, &set)) cpus[k++] = c;
    if (k < 2) {
      fprintf(stderr, "futex_pingpong: split needs two CPUs\n");
      return 77;
    }
  }
  pthread_t t[2];
  for (uintptr_t i = 0; i < 2; i++)
    if (pthread_create(&t[i], NULL, player, (void *)i) != 0) return 3;
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("handoffs=%llu\n", (unsigned long long)handoffs);
  return handoffs == 2 * n ? 0 : 1;
}
