/* Bench 2b, the limit for a detsim switch: a native futex hand-off.
 *
 *   futex_pingpong N same|split|procs
 *
 * Two threads hand a baton back and forth N times each (2N hand-offs), the
 * way detsim's scheduler does: the holder stores the other's turn into a
 * futex word and wakes it with FUTEX_WAKE, then waits with FUTEX_WAIT until
 * the turn comes back.  `same` pins both threads to the CPU the program
 * starts on (what detsim does with pin_cpu=1); `split` pins them to two
 * different CPUs, for contrast; `procs` is `same` with two processes and a
 * shared futex word, the way a world's nodes hand it over (bench/world.sh:
 * the limit for a node hand-over, which also switches address spaces).
 * Built natively (plain clang): raw futex calls are outside detsim's model.
 * Only the baton holder increments the hand-off count, so it must come out
 * exactly 2N: the program prints "handoffs=2N" and the scripts check it.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
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
struct baton {
  uint32_t turn;
  uint64_t handoffs;
};
static struct baton private_baton, *b = &private_baton;
static int wait_op = FUTEX_WAIT_PRIVATE, wake_op = FUTEX_WAKE_PRIVATE;
static uint64_t n;
static int cpus[2];

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
    while (__atomic_load_n(&b->turn, __ATOMIC_ACQUIRE) != me)
      syscall(SYS_futex, &b->turn, wait_op, 1 - me, NULL, NULL, 0);
    b->handoffs++;
    __atomic_store_n(&b->turn, 1 - me, __ATOMIC_RELEASE);
    syscall(SYS_futex, &b->turn, wake_op, 1, NULL, NULL, 0);
  }
  return NULL;
}

static int play_in_two_processes(void) {
  b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED) {
    perror("mmap");
    return 3;
  }
  wait_op = FUTEX_WAIT;
  wake_op = FUTEX_WAKE;
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 3;
  }
  if (pid == 0) {
    player((void *)1);
    _exit(0);
  }
  player((void *)0);
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 3;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[2], "same") != 0 && strcmp(argv[2], "split") != 0 && strcmp(argv[2], "procs") != 0)) {
    fprintf(stderr, "usage: futex_pingpong N same|split|procs\n");
    return 2;
  }
  n = strtoull(argv[1], NULL, 10);
  if (strcmp(argv[2], "procs") == 0) {
    cpus[0] = cpus[1] = sched_getcpu();
    int r = play_in_two_processes();
    if (r != 0) return r;
  } else if (strcmp(argv[2], "same") == 0) {
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
  if (b == &private_baton) {
    pthread_t t[2];
    for (uintptr_t i = 0; i < 2; i++)
      if (pthread_create(&t[i], NULL, player, (void *)i) != 0) return 3;
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  }
  printf("handoffs=%llu\n", (unsigned long long)b->handoffs);
  return b->handoffs == 2 * n ? 0 : 1;
}
