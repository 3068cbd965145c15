/* Inline-asm system calls see what the libc wrappers see: the same pid and
 * thread ids, the same clock, and their writes to stdout land in the same
 * output, in order with printf's, in a thread and in a forked child too.
 * Natively that is the kernel; in a run with trap_syscalls=1 every one of
 * them is simulated. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../raw_asm.h"

static long ns_between(const struct timespec *a, const struct timespec *b) {
  return (b->tv_sec - a->tv_sec) * 1000000000L + (b->tv_nsec - a->tv_nsec);
}

/* A raw clock read is a yield point of the simulation: the two threads'
 * calls interleave in an order drawn from the seed. */
#define ROUNDS 6

static void *worker(void *arg) {
  int *same = arg;
  *same = 1;
  for (int i = 0; i < ROUNDS; i++) {
    *same &= raw_syscall3(SYS_gettid, 0, 0, 0) == (long)gettid();
    struct timespec ts;
    *same &= raw_syscall3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0) == 0;
  }
  return NULL;
}

int main(void) {
  printf("pid_same=%d\n", raw_syscall3(SYS_getpid, 0, 0, 0) == (long)getpid());
  pthread_t t;
  int thread_same = 0;
  pthread_create(&t, NULL, worker, &thread_same);
  int main_same = 1;
  for (int i = 0; i < ROUNDS; i++) {
    main_same &= raw_syscall3(SYS_getpid, 0, 0, 0) == (long)getpid();
    struct timespec ts;
    main_same &= raw_syscall3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0) == 0;
  }
  pthread_join(t, NULL);
  printf("main_pid_same=%d\n", main_same);
  printf("thread_tid_same=%d\n", thread_same);

  struct timespec before, raw, after;
  clock_gettime(CLOCK_MONOTONIC, &before);
  long r = raw_syscall3(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&raw, 0);
  clock_gettime(CLOCK_MONOTONIC, &after);
  printf("raw_clock=%ld between=%d\n", r, ns_between(&before, &raw) >= 0 && ns_between(&raw, &after) >= 0);

  /* A forked child's raw calls are its own process's: its pid. */
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) _exit(raw_syscall3(SYS_getpid, 0, 0, 0) == (long)getpid() ? 0 : 1);
  int st = -1;
  waitpid(child, &st, 0);
  printf("child_pid_same=%d\n", WIFEXITED(st) && WEXITSTATUS(st) == 0);

  fflush(stdout);
  static const char line[] = "written by a syscall instruction\n";
  printf("write=%ld\n", raw_syscall3(SYS_write, 1, (long)line, (long)strlen(line)));
  printf("bad_fd=%ld\n", raw_syscall3(SYS_write, 12345, (long)line, 1));
  return 0;
}
