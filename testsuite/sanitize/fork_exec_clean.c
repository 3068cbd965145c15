/* A correctly synchronized program of several processes under
 * ThreadSanitizer: two forked children, one of which execs this program
 * again, each with threads that share a counter under a mutex, talking to
 * the parent over pipes; the parent's own threads do the same after its
 * forks, and it waits for both children.  Every fork is made by its
 * process's only thread, so TSan checks every process: no report. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 20

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *count(void *arg) {
  int step = *(const int *)arg;
  for (int i = 0; i < ROUNDS; i++) {
    pthread_mutex_lock(&lock);
    counter += step;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

/* Two threads add `step` ROUNDS times each: the sum is the same on every
 * schedule, and every access is under the lock. */
static int count_twice(int step) {
  pthread_t a, b;
  pthread_create(&a, NULL, count, &step);
  pthread_create(&b, NULL, count, &step);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return counter;
}

static void write_int(int fd, int v) {
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%d\n", v);
  if (write(fd, buf, (size_t)n) != n) _exit(3);
}

static int read_int(int fd) {
  char buf[32] = { 0 };
  size_t got = 0;
  ssize_t n;
  while (got < sizeof buf - 1 && (n = read(fd, buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)n;
  return atoi(buf);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "image") == 0) {
    /* The exec'd image: its step comes from the parent over stdin. */
    int step = read_int(0);
    write_int(1, count_twice(step) + atoi(argv[2]));
    return 0;
  }
  int from_a[2], to_b[2], from_b[2];
  if (pipe(from_a) != 0 || pipe(to_b) != 0 || pipe(from_b) != 0) return 1;
  pid_t a = fork();
  if (a < 0) return 2;
  if (a == 0) {
    close(from_a[0]);
    write_int(from_a[1], count_twice(1));
    _exit(0);
  }
  close(from_a[1]);
  pid_t b = fork();
  if (b < 0) return 2;
  if (b == 0) {
    dup2(to_b[0], 0);
    dup2(from_b[1], 1);
    close(to_b[0]), close(to_b[1]), close(from_b[0]), close(from_b[1]), close(from_a[0]);
    execl("/proc/self/exe", argv[0], "image", "1000", (char *)NULL);
    _exit(4);
  }
  close(to_b[0]);
  close(from_b[1]);
  write_int(to_b[1], 3);
  close(to_b[1]);
  int mine = count_twice(5);
  int got_a = read_int(from_a[0]);
  int got_b = read_int(from_b[0]);
  int sa, sb;
  if (waitpid(a, &sa, 0) != a || waitpid(b, &sb, 0) != b) return 5;
  printf("parent %d child %d image %d status %d %d\n", mine, got_a, got_b, WEXITSTATUS(sa), WEXITSTATUS(sb));
  return 0;
}
