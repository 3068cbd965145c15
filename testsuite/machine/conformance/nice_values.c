/* Nice values as Linux keeps them: per thread (PRIO_PROCESS names a
 * thread by its id, a pid its main thread), a new thread starts at its
 * creator's, getpriority of a group answers the lowest value, lowering a
 * value needs privilege (EACCES; nice(): EPERM), values clamp to -20..19,
 * a bad `which` is EINVAL.  What it prints never depends on the value the
 * run started at (ctest, or `nice -n`, decides that): it works relative to
 * it, and prints whether the caller is root where the answer depends. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int get(int which, id_t who) {
  errno = 0;
  int v = getpriority(which, who);
  return v == -1 && errno != 0 ? -100 - errno : v;
}

static void show_set(const char *label, int which, id_t who, int value) {
  int r = setpriority(which, who, value);
  printf("%s=%d%s%s\n", label, r, r < 0 ? " " : "", r < 0 ? strerrorname_np(errno) : "");
}

static pthread_barrier_t bar;
static pid_t worker_tid;
static int worker_saw_start, worker_saw_set;

static void *worker(void *arg) {
  int start = *(int *)arg;
  worker_tid = gettid();
  worker_saw_start = get(PRIO_PROCESS, 0) - start;
  pthread_barrier_wait(&bar); /* main sets this thread's value by its tid */
  pthread_barrier_wait(&bar);
  worker_saw_set = get(PRIO_PROCESS, 0) - start;
  return NULL;
}

int main(void) {
  /* A group of its own: natively the harness's processes share the
   * caller's group, and PRIO_PGRP would count them. */
  setpgid(0, 0);
  int root = geteuid() == 0;
  printf("root=%d\n", root);
  int start = get(PRIO_PROCESS, 0);
  if (start < -20 || start > 19) {
    printf("getpriority failed: %d\n", start);
    return 1;
  }
  /* Stay clear of the top so that +1 .. +3 always fit. */
  if (start > 15) start = 15;
  show_set("set_start", PRIO_PROCESS, 0, start);
  printf("self_by_pid_same=%d\n", get(PRIO_PROCESS, (id_t)getpid()) == get(PRIO_PROCESS, 0));
  show_set("raise_by_2", PRIO_PROCESS, 0, start + 2);
  printf("now=+%d\n", get(PRIO_PROCESS, 0) - start);
  show_set("lower_by_1", PRIO_PROCESS, 0, start + 1); /* denied unless root */
  printf("after_lower=+%d\n", get(PRIO_PROCESS, 0) - start);
  int n = nice(1);
  printf("nice(1)=+%d\n", n - start);
  errno = 0;
  int m = nice(-1);
  printf("nice(-1)=%s\n", m == -1 && errno ? strerrorname_np(errno) : "ok");
  int cur = get(PRIO_PROCESS, 0);

  /* A thread starts at its creator's value; a value set by its tid is its own. */
  pthread_barrier_init(&bar, NULL, 2);
  pthread_t t;
  int here = cur;
  pthread_create(&t, NULL, worker, &here);
  pthread_barrier_wait(&bar);
  printf("worker_started_at_creator=%d\n", worker_saw_start == 0);
  show_set("set_worker", PRIO_PROCESS, (id_t)worker_tid, cur + 1 > 19 ? 19 : cur + 1);
  printf("main_unchanged=%d\n", get(PRIO_PROCESS, 0) == cur);
  printf("group_lowest=%d\n", get(PRIO_PGRP, 0) == cur);
  pthread_barrier_wait(&bar);
  pthread_join(t, NULL);
  printf("worker_saw_its_own=%d\n", worker_saw_set == cur + 1 - here);

  /* Clamping, bad input. */
  show_set("set_99", PRIO_PROCESS, 0, 99);
  printf("clamped=%d\n", get(PRIO_PROCESS, 0));
  printf("bad_which=%d\n", get(42, 0));
  show_set("bad_which_set", 42, 0, 19);
  printf("no_such_pid=%d\n", get(PRIO_PROCESS, 999999));
  return 0;
}
